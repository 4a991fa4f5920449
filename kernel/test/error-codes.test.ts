import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KERNEL_ERROR_CODES } from '../src/index.ts';

test('the README lists exactly the kernel error codes, with the same "how to fix"', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const rows = [...readme.matchAll(/^\| `(ORYX_E_[A-Z_]+)` \| (.+) \|$/gm)].map((m) => [m[1], m[2]]);
  assert.equal(Object.fromEntries(rows), { ...KERNEL_ERROR_CODES });
});

test('every code has the ORYX_E_<AREA>_<WHAT> shape and is raised somewhere in the source', () => {
  const dir = fileURLToPath(new URL('../src/', import.meta.url));
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && path.basename(f) !== 'errors.ts');
  const source = files.map((f) => readFileSync(path.join(dir, f), 'utf8')).join('\n');
  for (const code of Object.keys(KERNEL_ERROR_CODES)) {
    assert.match(code, /^ORYX_E_[A-Z]+_[A-Z_]+$/);
    assert.ok(source.includes(`'${code}'`), `${code} is used`);
  }
});

test.run();
