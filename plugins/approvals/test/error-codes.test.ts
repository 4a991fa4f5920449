import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readmeErrorCodes } from '@oryxos/kernel/testing';
import { ERROR_CODES } from '../src/index.ts';

test('README lists exactly the codes of ERROR_CODES, once each, with the same "how to fix"', () => {
  assert.equal(readmeErrorCodes(readFileSync(new URL('../README.md', import.meta.url), 'utf8')), { ...ERROR_CODES });
});

test.run();
