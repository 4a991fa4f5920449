import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readmeErrorCodes } from '@oryxos/kernel/testing';
import { ERROR_CODES } from '../src/index.ts';

test('README lists exactly the codes of ERROR_CODES, once each, with the same "how to fix"', () => {
  assert.equal(readmeErrorCodes(readFileSync(new URL('../README.md', import.meta.url), 'utf8')), { ...ERROR_CODES });
  for (const code of Object.keys(ERROR_CODES)) assert.match(code, /^ORYX_E_TELEGRAM_[A-Z_]+$/);
});

test('README lists every option the factory takes', async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const { resolveOptions } = await import('../src/options.ts');
  const o = resolveOptions({ allow: {} });
  const keys = Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v).map((s) => `${k}.${s}`) : [k]));
  for (const key of [...keys, 'agent', 'refusal']) assert.match(readme, `\`${key}\``, `README names option ${key}`);
});

test.run();
