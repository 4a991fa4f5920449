// Case files are checked before anything runs: each error names the file, the line and the key,
// with the closest known key for a typo.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import { tempProject } from '@oryxos/kernel/testing';
import { readCaseFile } from '../src/case-file.ts';
import { discoverCases } from '../src/discover.ts';

let dir: string;
test.before(async () => { dir = await tempProject('eval-cases-'); });
test.after(async () => { await rm(dir, { recursive: true, force: true }); });

async function write(name: string, text: string): Promise<string> {
  const file = path.join(dir, name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
  return file;
}

async function refused(name: string, text: string): Promise<{ message: string; hint?: string; data?: Record<string, unknown> }> {
  const file = await write(name, text);
  try {
    await readCaseFile(file, { defaultAgent: 'assistant' });
  } catch (error) {
    assert.ok(isOryxError(error), String(error));
    assert.is(error.code, 'ORYX_E_EVAL_CASE_INVALID');
    return { message: error.message, hint: error.hint, data: error.data };
  }
  throw new Error(`${name} was accepted`);
}

test('a case with every key reads as written', async () => {
  const file = await write('full.yaml', `name: Reads the README
description: The quickstart question
agent: researcher
input: [Hi, What is this project?]
fixtures:
  notes/a.md: hello
  data: { from: fixtures }
skip: false
min_pass_rate: 0.8
expect:
  answer_contains: OryxOS
  answer_not_contains: [error, sorry]
  answer_matches: /runtime/i
  answer_equals: exact
  answer_json: { type: object }
  tools_called: [read_file, { name: list_dir, args: { path: . }, args_match: { path: "^\\\\.$" }, min: 0, max: 2 }]
  tools_not_called: [write_file]
  no_denials: true
  stop_reason: suspended
  max_steps: 3
  max_tokens: 5000
  max_duration_ms: 20000
  llm_rubric: Says what the project is
`);
  await mkdir(path.join(dir, 'fixtures'), { recursive: true });
  const [c] = await readCaseFile(file, { defaultAgent: 'assistant' });
  assert.is(c!.name, 'Reads the README');
  assert.is(c!.agent, 'researcher');
  assert.equal(c!.turns, ['Hi', 'What is this project?']);
  assert.equal(c!.fixtures, [{ path: 'notes/a.md', content: 'hello' }, { path: 'data', from: path.join(dir, 'fixtures') }]);
  assert.is(c!.minPassRate, 0.8);
  assert.is(c!.cassette, path.join(dir, 'cassettes', 'reads-the-readme.jsonl'));
  const e = c!.expect;
  assert.equal(e.answerContains, ['OryxOS']);
  assert.equal(e.answerNotContains, ['error', 'sorry']);
  assert.equal(e.answerMatches.map(String), ['/runtime/i']);
  assert.equal(e.toolsCalled.map((t) => [t.name, t.min, t.max, t.args, t.argsMatch && String(t.argsMatch.path)]), [['read_file', 1, undefined, undefined, undefined], ['list_dir', 0, 2, { path: '.' }, '/^\\.$/']]);
  assert.equal([e.stopReason, e.maxSteps, e.maxTokens, e.maxDurationMs, e.llmRubric], ['suspended', 3, 5000, 20000, ['Says what the project is']]);
});

test('an unknown key names the file, the line and the closest key', async () => {
  const r = await refused('typo.yaml', 'name: x\ninput: hi\nexpect:\n  answer_contains: a\n  tool_called: [read_file]\n');
  assert.match(r.message, /typo\.yaml:5: expect\.tool_called is not a key of a case \(did you mean "tools_called"\?\)/);
  assert.equal(r.data, { file: path.join(dir, 'typo.yaml'), line: 5, key: 'expect.tool_called' });
  assert.match(r.hint!, /Known keys here: .*tools_called/);
  const top = await refused('top.yaml', 'name: x\ninputs: hi\nexpect: {}\n');
  assert.match(top.message, /top\.yaml:2: inputs is not a key of a case \(did you mean "input"\?\)/);
});

test('each kind of bad value is refused at its line', async () => {
  const cases: [string, RegExp][] = [
    ['name: x\ninput: hi\nexpect:\n  stop_reason: finale\n', /:4: expect\.stop_reason names no stop reason: "finale" \(did you mean "final"\?\)/],
    ['name: x\ninput: hi\nexpect:\n  answer_matches: "(unclosed"\n', /:4: expect\.answer_matches is not a regular expression/],
    ['name: x\ninput: hi\nexpect:\n  max_steps: -1\n', /:4: expect\.max_steps must be/],
    ['name: x\ninput: hi\nexpect:\n  answer_json: { type: 5 }\n', /:4: expect\.answer_json is not a valid JSON Schema/],
    ['name: x\ninput: hi\nexpect:\n  tools_called: [{ name: a, min: 3, max: 1 }]\n', /:4: expect\.tools_called\.max is below min \(3\)/],
    ['name: x\ninput: hi\nexpect:\n  no_denials: true\n  denied: [shell]\n', /:4: expect\.no_denials contradicts denied/],
    ['name: x\ninput: hi\nfixtures:\n  ../outside.txt: x\nexpect: {}\n', /:4: fixtures\.\.\.\/outside\.txt must be a path inside the project/],
    ['name: x\ninput: hi\nfixtures:\n  a.txt: { from: nowhere.txt }\nexpect: {}\n', /:4: fixtures\.a\.txt\.from names .*nowhere\.txt, which does not exist/],
    ['name: x\ninput: []\nexpect: {}\n', /:2: input must hold at least one user turn/],
    ['input: hi\nexpect: {}\n', /:1: name must be/],
    ['name: x\ninput: hi\n', /:1: expect must be/],
    ['name: x\ninput: hi\nexpect: {}\nmin_pass_rate: 2\n', /:4: min_pass_rate must be at most 1/],
    ['name: x\n  input: [unclosed\n', /:\d+: not valid YAML/],
    ['', /:1: is empty/],
    ['- name: a\n  input: hi\n  expect: {}\n- name: b\n  input: hi\n  expect:\n    answer_contain: x\n', /:7: expect\.answer_contain is not a key of a case \(did you mean "answer_contains"\?\)/],
  ];
  for (const [i, [text, expected]] of cases.entries()) {
    const r = await refused(`bad-${i}.yaml`, text);
    assert.match(r.message, expected, `case ${i}: ${r.message}`);
    assert.match(r.message, new RegExp(`bad-${i}\\.yaml:`), 'the message names the file');
  }
});

test('two cases of a folder with one name are refused naming both; --filter that matches nothing says what there is', async () => {
  const evals = path.join(dir, '.oryxos', 'agents', 'assistant', 'evals');
  await mkdir(evals, { recursive: true });
  await writeFile(path.join(evals, 'a.yaml'), 'name: Same name\ninput: hi\nexpect: {}\n');
  await writeFile(path.join(evals, 'b.yaml'), 'name: same-name\ninput: hi\nexpect: {}\n');
  const input = { workspaceDir: path.join(dir, '.oryxos'), defaultAgent: 'assistant' };
  try {
    await discoverCases({ ...input, target: 'assistant' });
    assert.unreachable('accepted');
  } catch (error) {
    assert.ok(isOryxError(error) && error.code === 'ORYX_E_EVAL_CASE_INVALID', String(error));
    assert.match(error.message, /b\.yaml:1: name "same-name" is taken by the case at .*a\.yaml:1/);
  }
  await writeFile(path.join(evals, 'b.yaml'), 'name: other\ninput: hi\nexpect: {}\n');
  assert.equal((await discoverCases({ ...input, target: 'assistant' })).map((c) => c.name), ['Same name', 'other']);
  assert.equal((await discoverCases({ ...input })).map((c) => c.name), ['Same name', 'other'], 'every agent\'s evals');
  assert.equal((await discoverCases({ ...input, target: evals, filter: 'OTH' })).map((c) => [c.name, c.agent]), [['other', 'assistant']], 'a folder of an agent runs that agent');
  assert.equal((await discoverCases({ ...input, target: path.join(evals, 'a.yaml'), filter: 'same*' })).map((c) => c.name), ['Same name']);
  for (const [target, filter, expected] of [
    ['assistant', 'zzz', /--filter "zzz" matches none of the 2 case\(s\): Same name, other/],
    ['nobody', undefined, /No agent "nobody"/],
    [path.join(dir, 'missing-folder'), undefined, /No such file or folder/],
  ] as const) {
    try {
      await discoverCases({ ...input, target, filter });
      assert.unreachable('accepted');
    } catch (error) {
      assert.ok(isOryxError(error) && error.code === 'ORYX_E_EVAL_NO_CASES', String(error));
      assert.match(error.message, expected);
    }
  }
});

test.run();
