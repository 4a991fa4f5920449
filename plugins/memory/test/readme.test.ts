import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readmeErrorCodes } from '@oryxos/kernel/testing';
import { ERROR_CODES } from '../src/errors.ts';
import { DEFAULT_OPTIONS } from '../src/plugin.ts';

const readme = () => readFile(path.join(import.meta.dirname, '..', 'README.md'), 'utf8');

test('the README error table lists exactly the exported codes, with the same how-to-fix text', async () => {
  assert.equal(readmeErrorCodes(await readme()), { ...ERROR_CODES });
});

test('the README documents every option', async () => {
  const documented = [...(await readme()).matchAll(/^\| `([a-zA-Z]+)` \| [^|]+ \| [^|]+ \|/gm)].map((m) => m[1]);
  assert.equal(documented.sort(), Object.keys(DEFAULT_OPTIONS).sort());
});

test.run();
