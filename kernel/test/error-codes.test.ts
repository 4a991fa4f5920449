import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readmeErrorCodes } from '@oryxos/kernel/testing';

const readme = readmeErrorCodes(readFileSync(new URL('../README.md', import.meta.url), 'utf8'));
const sources = (dirs: string[]) => dirs.map((d) => fileURLToPath(new URL(d, import.meta.url)))
  .flatMap((dir) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => readFileSync(path.join(dir, f), 'utf8')))
  .join('\n');
// The kernel and the kits it is made of; the ORYX_E_LLM_* codes are its contract with every
// provider, and the provider kit raises most of them.
const OWN = ['../src/', '../../kits/agent-files/src/', '../../kits/sandbox-gate/src/', '../../kits/history/src/', '../../kits/stop-rules/src/', '../../kits/sessions-in-memory/src/'];
const USED = [...OWN, '../../kits/provider/src/', '../../kits/schema/src/'];

test('every code the README lists has the ORYX_E_<AREA>_<WHAT> shape, a fix, and is raised in the kernel or a kit it uses', () => {
  const source = sources(USED);
  assert.ok(Object.keys(readme).length >= 20, 'the table is there');
  for (const [code, fix] of Object.entries(readme)) {
    assert.match(code, /^ORYX_E_[A-Z]+_[A-Z_]+$/);
    assert.ok(fix.length > 10, `${code} says how to fix it`);
    assert.ok(source.includes(`'${code}'`), `${code} is used`);
  }
});

test('every code the kernel and its kits raise is in the README', () => {
  const raised = new Set([...sources(OWN).matchAll(/new OryxError\('(ORYX_E_[A-Z_]+)'/g)].map((m) => m[1]!));
  assert.ok(raised.size >= 10, 'codes found');
  for (const code of raised) assert.ok(code in readme, `${code} is listed in kernel/README.md`);
});

test('readmeErrorCodes: takes the last cell as the fix, unescapes \\|, and refuses duplicates and a missing section', () => {
  const table = '## Error codes\n\n| Code | Status | How to fix |\n|---|---|---|\n| `ORYX_E_A_B` | 404 | Use a \\| b. |\n| `ORYX_E_C_D` | Fix it. |\n';
  assert.equal(readmeErrorCodes(`# x\n\n| 401 | \`ORYX_E_LLM_AUTH\` | no |\n\n${table}`), { ORYX_E_A_B: 'Use a | b.', ORYX_E_C_D: 'Fix it.' });
  assert.throws(() => readmeErrorCodes(`${table}| \`ORYX_E_A_B\` | again |\n`), /lists ORYX_E_A_B twice/);
  assert.throws(() => readmeErrorCodes(table.replace('## Error codes', '## Errors')), /no "## Error codes" section/);
});

test.run();
