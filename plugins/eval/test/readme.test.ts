// The README documents exactly what the package has: its error codes (with the same fixes),
// every key of a case file and of `expect:`, every stop reason a case may name, every option.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readmeErrorCodes } from '@oryxos/kernel/testing';
import { CASE_KEYS, ERROR_CODES, EXPECT_KEYS, STOP_REASONS } from '../src/index.ts';

const readme = await readFile(path.join(import.meta.dirname, '..', 'README.md'), 'utf8');

/** The first-column keys of the table under `heading`. */
function tableKeys(heading: string): string[] {
  const start = readme.indexOf(`\n${heading}\n`);
  assert.ok(start !== -1, `the README has "${heading}"`);
  const rest = readme.slice(start + heading.length + 2);
  const section = rest.slice(0, rest.search(/\n#{2,3} /) === -1 ? undefined : rest.search(/\n#{2,3} /));
  return [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!);
}

test('the README error table lists exactly the exported codes, with the same how-to-fix text', () => {
  assert.equal(readmeErrorCodes(readme), { ...ERROR_CODES });
});

test('every key of a case and of expect: is documented, and nothing else', () => {
  assert.equal(tableKeys('### Case keys').sort(), [...CASE_KEYS].sort());
  assert.equal(tableKeys('### Checks (`expect:`)').sort(), [...EXPECT_KEYS].sort());
  // The keys the issue asks every version to keep, so cases stay portable.
  for (const key of ['name', 'input', 'expect']) assert.ok(CASE_KEYS.includes(key), key);
  for (const key of ['answer_contains', 'answer_matches', 'tools_called', 'tools_not_called', 'no_denials', 'max_steps', 'stop_reason']) assert.ok(EXPECT_KEYS.includes(key), key);
});

test('every stop reason and option is documented', () => {
  assert.equal(tableKeys('### Stop reasons').sort(), Object.keys(STOP_REASONS).sort());
  assert.equal([...readme.matchAll(/^\| `([a-zA-Z]+)` \| `[^`]+` \| [^|]+ \|/gm)].map((m) => m[1]).sort(), ['concurrency', 'judge']);
});

test.run();
