import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readmeErrorCodes } from '@oryxos/kernel/testing';
import { ERROR_CODES } from '../src/index.ts';

const dir = path.resolve(import.meta.dirname, '..');

test('the README error table lists exactly ERROR_CODES, once each, with the same "how to fix" and an HTTP status', () => {
  const readme = readFileSync(path.join(dir, 'README.md'), 'utf8');
  assert.equal(readmeErrorCodes(readme), { ...ERROR_CODES });
  for (const code of Object.keys(ERROR_CODES)) assert.match(readme, new RegExp(`^\\| \`${code}\` \\| (\\d{3}|—) \\| `, 'm'), `${code} has a status (or —)`);
});

test.run();
