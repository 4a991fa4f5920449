import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ERROR_CODES } from '../src/index.ts';

test('README lists exactly the codes of ERROR_CODES, with the same "how to fix"', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Error codes'));
  const rows = [...section.matchAll(/^\| `(ORYX_E_[A-Z_]+)` \| (.+) \|$/gm)].map((m) => [m[1], m[2]]);
  assert.equal(Object.fromEntries(rows), { ...ERROR_CODES });
  assert.is(rows.length, Object.keys(ERROR_CODES).length, 'no code listed twice');
  for (const code of Object.keys(ERROR_CODES)) assert.match(code, /^ORYX_E_TOOLS_[A-Z_]+$/);
});

test.run();
