import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ERROR_CODES, VERSION } from '../src/index.ts';

const dir = path.resolve(import.meta.dirname, '..');

test('the README error table lists exactly ERROR_CODES, with the same "how to fix"', () => {
  const readme = readFileSync(path.join(dir, 'README.md'), 'utf8');
  const section = readme.split(/^## Error codes$/m)[1]?.split(/^## /m)[0] ?? '';
  const rows = [...section.matchAll(/^\| `(ORYX_E_[A-Z_]+)` \| (\d{3}|—) \| (.+?) \|$/gm)].map((m) => [m[1], m[3]]);
  assert.ok(rows.length > 0, 'the README has an error table');
  assert.equal(rows.map((r) => r[0]).sort(), Object.keys(ERROR_CODES).sort());
  for (const [code, fix] of rows) assert.is(fix, ERROR_CODES[code as keyof typeof ERROR_CODES], code);
});

test('VERSION matches package.json', () => {
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  assert.is(VERSION, pkg.version);
});

test.run();
