import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KERNEL_ERROR_CODES } from '../src/errors.ts';
import { readmeErrorCodes } from '@oryxos/kernel/testing';

test('the README lists exactly the kernel error codes, with the same "how to fix"', () => {
  assert.equal(readmeErrorCodes(readFileSync(new URL('../README.md', import.meta.url), 'utf8')), { ...KERNEL_ERROR_CODES });
});

test('every code has the ORYX_E_<AREA>_<WHAT> shape and is raised somewhere in the kernel or a kit it uses', () => {
  // The ORYX_E_LLM_* codes are the kernel's contract with every provider; the provider kit raises most of them.
  const dirs = ['../src/', '../../kits/provider/src/', '../../kits/schema/src/'].map((d) => fileURLToPath(new URL(d, import.meta.url)));
  const source = dirs.flatMap((dir) => readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !(dir.endsWith('kernel/src/') && path.basename(f) === 'errors.ts'))
    .map((f) => readFileSync(path.join(dir, f), 'utf8'))).join('\n');
  for (const code of Object.keys(KERNEL_ERROR_CODES)) {
    assert.match(code, /^ORYX_E_[A-Z]+_[A-Z_]+$/);
    assert.ok(source.includes(`'${code}'`), `${code} is used`);
  }
});

test('readmeErrorCodes: takes the last cell as the fix, unescapes \\|, and refuses duplicates and a missing section', () => {
  const table = '## Error codes\n\n| Code | Status | How to fix |\n|---|---|---|\n| `ORYX_E_A_B` | 404 | Use a \\| b. |\n| `ORYX_E_C_D` | Fix it. |\n';
  assert.equal(readmeErrorCodes(`# x\n\n| 401 | \`ORYX_E_LLM_AUTH\` | no |\n\n${table}`), { ORYX_E_A_B: 'Use a | b.', ORYX_E_C_D: 'Fix it.' });
  assert.throws(() => readmeErrorCodes(`${table}| \`ORYX_E_A_B\` | again |\n`), /lists ORYX_E_A_B twice/);
  assert.throws(() => readmeErrorCodes(table.replace('## Error codes', '## Errors')), /no "## Error codes" section/);
});

test.run();
