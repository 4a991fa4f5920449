// Every kind of check, once passing and once failing, through the whole path: YAML case files,
// a kernel per case on a copy of the project, the real openai plugin against the loopback test
// model, real tools and sandbox, SQLite sessions.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { brain } from './helpers/brain.ts';
import { testModel, type TestModel } from './helpers/model.ts';
import { evalProject, type EvalProject } from './helpers/project.ts';
import type { CaseReport } from '../src/outcome.ts';

let model: TestModel;
let project: EvalProject;
let reports: Map<string, CaseReport>;

const CASES = `
- name: contains passes
  input: Read the README
  expect: { answer_contains: [README, hello] }
- name: contains fails
  input: Read the README
  expect: { answer_contains: goodbye }
- name: not contains fails
  input: Hello
  expect: { answer_not_contains: Hello }
- name: matches passes
  input: Hello
  expect: { answer_matches: "/^hello\\\\b/i" }
- name: matches fails
  input: Hello
  expect: { answer_matches: "^Goodbye" }
- name: equals passes
  input: Hello
  expect: { answer_equals: "Hello there!" }
- name: equals fails
  input: Hello
  expect: { answer_equals: "Hello" }
- name: json schema passes
  input: Give JSON
  expect:
    answer_json: { type: object, required: [ok, count], properties: { count: { type: integer, minimum: 1 } } }
- name: json fenced passes
  input: Give fenced JSON
  expect: { answer_json: true }
- name: json schema fails
  input: Give JSON
  expect:
    answer_json: { type: object, required: [missing] }
- name: json not json fails
  input: Hello
  expect: { answer_json: true }
- name: tools called passes
  input: Read the README
  expect:
    tools_called:
      - read_file
      - { name: read_file, args: { path: README.md }, max: 1 }
      - { name: read_file, args_match: { path: "\\\\.md$" } }
- name: tools called args fail
  input: Read the README
  expect:
    tools_called: [{ name: read_file, args: { path: OTHER.md } }]
- name: tools called at most fails
  input: Read twice
  expect:
    tools_called: [{ name: read_file, max: 1 }]
- name: tools called at most passes
  input: Read twice
  expect:
    tools_called: [{ name: read_file, min: 2, max: 2 }]
- name: tools not called passes
  input: Hello
  expect: { tools_not_called: [read_file, write_file] }
- name: tools not called fails
  input: Read the README
  expect: { tools_not_called: [read_file] }
- name: no denials passes
  input: Write inside
  expect: { no_denials: true, tools_called: [write_file] }
- name: no denials fails
  input: Write outside
  expect: { no_denials: true }
- name: this denial passes
  input: Write outside
  expect:
    denied: [{ tool: write_file, reason_matches: "secret\\\\.txt" }]
- name: this denial fails
  input: Write inside
  expect: { denied: [write_file] }
- name: stop reason passes
  input: Hello
  expect: { stop_reason: final }
- name: stop reason fails
  input: Loop forever
  expect: { stop_reason: final }
- name: max steps passes
  input: Read the README
  expect: { max_steps: 2 }
- name: max steps fails
  input: Read twice
  expect: { max_steps: 2 }
- name: max tokens passes
  input: Read the README
  expect: { max_tokens: 120 }
- name: max tokens fails
  input: Read the README
  expect: { max_tokens: 119 }
- name: max duration passes
  input: Hello
  expect: { max_duration_ms: 60000 }
- name: max duration fails
  input: Hello
  expect: { max_duration_ms: 0 }
- name: turns pass
  input: [My name is Ana, What is my name?]
  expect: { answer_contains: "Your name is Ana", max_steps: 2 }
- name: fixtures pass
  input: Read the notes
  fixtures: { notes/todo.md: "buy milk" }
  expect: { answer_equals: "Notes: buy milk" }
- name: skipped
  input: Hello
  skip: not today
  expect: {}
- name: rubric without judge
  input: Hello
  expect: { llm_rubric: "Greets the user" }
`;

test.before(async () => {
  model = await testModel(brain);
  project = await evalProject({ modelUrl: model.url });
  await project.cases({ 'kinds.yaml': CASES });
  reports = new Map((await project.run({ concurrency: 4 })).map((r) => [r.name, r]));
});
test.after(async () => {
  await model.close();
  await project.remove();
});

const status = (name: string) => {
  const r = reports.get(name);
  assert.ok(r, `no report for ${name}`);
  return r!;
};

test('each kind of check passes when the run does what the case says', () => {
  for (const name of ['contains passes', 'matches passes', 'equals passes', 'json schema passes', 'json fenced passes', 'tools called passes', 'tools called at most passes',
    'tools not called passes', 'no denials passes', 'this denial passes', 'stop reason passes', 'max steps passes', 'max tokens passes', 'max duration passes', 'turns pass', 'fixtures pass']) {
    const r = status(name);
    assert.is(r.status, 'pass', `${name}: ${JSON.stringify(r.failure)}`);
    assert.ok(r.assertions.length > 0, `${name} made its checks`);
    assert.is(r.mode, 'live', 'no cassette yet: the case ran live');
  }
});

test('each kind of check fails with the evidence of what the run did', () => {
  const expect: Record<string, [string, RegExp]> = {
    'contains fails': ['answer_contains "goodbye"', /does not contain it; answer: "The README says: The demo project says hello\."/],
    'not contains fails': ['answer_not_contains "Hello"', /contains it; answer: "Hello there!"/],
    'matches fails': ['answer_matches /^Goodbye/', /does not match; answer: "Hello there!"/],
    'equals fails': ['answer_equals "Hello"', /the answer is "Hello there!"/],
    'json schema fails': ['answer_json (schema)', /does not fit the schema: missing: is required/],
    'json not json fails': ['answer_json', /not JSON/],
    'tools called args fail': ['tools_called read_file args {"path":"OTHER.md"}', /0 matching call\(s\), at least 1 expected; calls: read_file \{"path":"README.md"\}/],
    'tools called at most fails': ['tools_called read_file max 1', /2 matching call\(s\), 1 to 1 expected|2 matching call\(s\), exactly 1 expected/],
    'tools not called fails': ['tools_not_called read_file', /called 1 time\(s\): read_file \{"path":"README.md"\}/],
    'no denials fails': ['no_denials', /denied: write_file \{"content":"x","path":"secret.txt"\} \(.*secret\.txt/],
    'this denial fails': ['denied write_file', /nothing was denied; calls: write_file/],
    'stop reason fails': ['stop_reason final', /the run stopped with (loop|limit)/],
    'max steps fails': ['max_steps 2', /took 3 steps/],
    'max tokens fails': ['max_tokens 119', /used 120 tokens \(100 in, 20 out\)/],
    'max duration fails': ['max_duration_ms 0', /the run took \d+ ms/],
  };
  for (const [name, [assertion, evidence]] of Object.entries(expect)) {
    const r = status(name);
    assert.is(r.status, 'fail', name);
    assert.is(r.failure?.assertion, assertion, name);
    assert.match(r.failure?.evidence ?? '', evidence, `${name}: ${r.failure?.evidence}`);
  }
});

test('a skipped case does not run; a rubric with no judge is skipped, not passed', () => {
  const skipped = status('skipped');
  assert.equal([skipped.status, skipped.runs, skipped.skipped], ['skipped', 0, 'not today']);
  const rubric = status('rubric without judge');
  assert.is(rubric.status, 'pass');
  assert.equal(rubric.assertions.map((a) => [a.assertion, a.skipped !== undefined]), [['llm_rubric "Greets the user"', true]]);
  assert.not.ok(model.asks.some((a) => a.user.includes('Rubric:')), 'no judge was asked');
});

test('the copy of the project is thrown away: the project is as it was, and fixtures never reach it', async () => {
  const { existsSync } = await import('node:fs');
  const path = await import('node:path');
  assert.not.ok(existsSync(path.join(project.dir, 'out', 'a.txt')), 'a write of a case stays in its copy');
  assert.not.ok(existsSync(path.join(project.dir, 'notes')), 'a fixture stays in its copy');
});

test.run();
