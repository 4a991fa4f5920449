// --record against the scripted loopback model writes a cassette per case; --replay with that
// server stopped gives the same results, offline, with the tools still running for real; and a
// cassette that no longer matches the agent's prompt, its tools, the case or what a tool does
// reports "diverged", naming the step.
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeAgents } from '@oryxos/kernel/testing';
import { brain } from './helpers/brain.ts';
import { testModel } from './helpers/model.ts';
import { DEFAULT_AGENT, evalProject, stable } from './helpers/project.ts';

const CASES = `
- name: reads the readme
  input: Read the README
  expect: { answer_contains: hello, tools_called: [{ name: read_file, args: { path: README.md } }], max_steps: 2, max_tokens: 120 }
- name: denied write
  input: Write outside
  expect: { denied: [write_file], stop_reason: final }
- name: remembers the name
  input: [My name is Ana, What is my name?]
  expect: { answer_equals: Your name is Ana. }
- name: reads a fixture
  input: Read the notes
  fixtures: { notes/todo.md: "buy milk" }
  expect: { answer_contains: buy milk }
- name: fails on purpose
  input: Hello
  expect: { answer_contains: Goodbye }
`;

test('--record writes a cassette per case; --replay with the model stopped gives identical results', async () => {
  const model = await testModel(brain);
  const project = await evalProject({ modelUrl: model.url });
  try {
    await project.cases({ 'cases.yaml': CASES });
    const recorded = await project.run({ mode: 'record', concurrency: 2 });
    assert.equal(recorded.map((r) => [r.name, r.mode, r.status]), [
      ['reads the readme', 'record', 'pass'], ['denied write', 'record', 'pass'], ['remembers the name', 'record', 'pass'],
      ['reads a fixture', 'record', 'pass'], ['fails on purpose', 'record', 'fail'],
    ], JSON.stringify(recorded.map((r) => r.failure)));
    const cassettes = path.join(project.evals(), 'cassettes');
    for (const name of ['reads-the-readme', 'denied-write', 'remembers-the-name', 'reads-a-fixture', 'fails-on-purpose']) {
      assert.ok(existsSync(path.join(cassettes, `${name}.jsonl`)), `${name}.jsonl`);
    }
    const lines = (await readFile(path.join(cassettes, 'reads-the-readme.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    assert.is(lines.length, 2, 'one line per model call');
    assert.ok(lines[0].request.prompt.system.agent && lines[0].request.prompt.tools.read_file, 'each line carries the print of its prompt');
    const asked = model.asks.length;
    await model.close();

    const replayed = await project.run({ concurrency: 3 });
    assert.equal(replayed.map((r) => r.mode), ['replay', 'replay', 'replay', 'replay', 'replay'], 'a case with a cassette replays by default');
    assert.equal(stable(replayed), stable(recorded), 'the same checks, steps, tokens and evidence');
    assert.is(model.asks.length, asked, 'no request reached a model');
    const again = await project.run({ mode: 'replay' });
    assert.equal(stable(again), stable(recorded), 'replay is deterministic');

    // The same cases live, with the model gone, fail to reach it: replay really was offline.
    const live = await project.run({ mode: 'live', filter: 'readme' });
    assert.is(live[0]!.status, 'error');
    assert.match(live[0]!.failure!.evidence, /ORYX_E_LLM_UNREACHABLE/);
  } finally {
    await model.close().catch(() => {});
    await project.remove();
  }
});

test('a recording replaced only once the run has ended: a failed recording keeps the old cassette', async () => {
  const model = await testModel(brain);
  const project = await evalProject({ modelUrl: model.url });
  try {
    await project.cases({ 'one.yaml': 'name: hello\ninput: Hello\nexpect: { answer_contains: Hello }\n' });
    await project.run({ mode: 'record' });
    const file = path.join(project.evals(), 'cassettes', 'hello.jsonl');
    const before = await readFile(file, 'utf8');
    await model.close();
    const failed = await project.run({ mode: 'record' });
    assert.is(failed[0]!.status, 'error');
    assert.is(await readFile(file, 'utf8'), before, 'the cassette is as it was');
    const { readdir } = await import('node:fs/promises');
    assert.equal(await readdir(path.dirname(file)), ['hello.jsonl'], 'no side file is left');
  } finally {
    await project.remove();
  }
});

test('a cassette that no longer matches reports diverged and the step: prompt, tools, input, a tool result', async () => {
  const model = await testModel(brain);
  const project = await evalProject({ modelUrl: model.url });
  try {
    await project.cases({ 'cases.yaml': `
- name: reads the readme
  input: Read the README
  expect: { answer_contains: hello }
- name: writes
  input: Write inside
  expect: { tools_called: [write_file] }
` });
    await project.run({ mode: 'record' });
    await model.close();
    const diverged = async (filter: string) => {
      const [r] = await project.run({ filter });
      assert.is(r!.status, 'diverged', JSON.stringify(r));
      return r!.failure!;
    };

    // The agent's instructions changed: the first model call's prompt differs.
    const agents = path.join(project.dir, '.oryxos');
    await writeAgents(agents, { assistant: { ...DEFAULT_AGENT, body: 'You are a pirate.' } });
    let failure = await diverged('readme');
    assert.is(failure.assertion, 'replay');
    assert.match(failure.evidence, /^diverged at step 1: .*the prompt differs from the recording \(.*reads-the-readme\.jsonl:1\): the agent's instructions \(the body of AGENT\.md\) changed/);

    // A tool the agent had is gone.
    await writeAgents(agents, { assistant: { ...DEFAULT_AGENT, tools: ['read_file', 'list_dir'] } });
    failure = await diverged('writes');
    assert.match(failure.evidence, /^diverged at step 1: .*tool write_file is gone/);
    await writeAgents(agents, { assistant: DEFAULT_AGENT });

    // What a tool does changed: README.md is gone, so read_file fails where it succeeded, at the second call.
    await rm(path.join(project.dir, 'README.md'));
    failure = await diverged('readme');
    assert.match(failure.evidence, /^diverged at step 2: .*first difference at message 3: this run has tool result of read_file \(an error\), the cassette \(.*reads-the-readme\.jsonl:2\) has tool result of read_file \(ok\)/);
    await writeFile(path.join(project.dir, 'README.md'), '# Demo\nThe demo project says hello.\n');

    // The case asks something else now.
    await project.cases({ 'cases.yaml': 'name: reads the readme\ninput: Read the README, please\nexpect: { answer_contains: hello }\n' });
    failure = await diverged('readme');
    assert.match(failure.evidence, /^diverged at step 1: .*first difference at message 1: this run has user "Read the README, please"/);

    // And back as it was, it replays again.
    await project.cases({ 'cases.yaml': 'name: reads the readme\ninput: Read the README\nexpect: { answer_contains: hello }\n' });
    const [ok] = await project.run({});
    assert.equal([ok!.mode, ok!.status], ['replay', 'pass']);
  } finally {
    await model.close().catch(() => {});
    await project.remove();
  }
});

test('--replay of a case without a cassette is an error naming it and how to record it', async () => {
  const project = await evalProject({ modelUrl: 'http://127.0.0.1:9/v1' });
  try {
    await project.cases({ 'one.yaml': 'name: never recorded\ninput: Hello\nexpect: {}\n' });
    const [r] = await project.run({ mode: 'replay' });
    assert.is(r!.status, 'error');
    assert.match(r!.failure!.evidence, /^ORYX_E_EVAL_NO_CASSETTE: case "never recorded" has no cassette at .*cassettes\/never-recorded\.jsonl \(hint: Record the case first with oryx eval --record/);
  } finally {
    await project.remove();
  }
});

test.run();
