import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ERROR_CODES } from '../src/errors.ts';
import { DEFAULT_OPTIONS } from '../src/plugin.ts';

const readme = () => readFile(path.join(import.meta.dirname, '..', 'README.md'), 'utf8');

test('the README error table lists exactly the exported codes, with the same how-to-fix text', async () => {
  const rows = [...(await readme()).matchAll(/^\| `(ORYX_E_[A-Z_]+)` \| (.*) \|$/gm)].map((m) => [m[1], m[2]]);
  assert.equal(Object.fromEntries(rows), { ...ERROR_CODES });
  assert.is(rows.length, Object.keys(ERROR_CODES).length, 'no code listed twice');
});

test('the README documents every option', async () => {
  const documented = [...(await readme()).matchAll(/^\| `([a-zA-Z]+)` \| [^|]+ \| [^|]+ \|/gm)].map((m) => m[1]);
  assert.equal(documented.sort(), Object.keys(DEFAULT_OPTIONS).sort());
});

test.run();
