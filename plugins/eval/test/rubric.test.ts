// llm_rubric: judged by the provider configured for it (never the agent's or the default), in a
// run of its own that is audited, stored, recorded into the case's cassette and replayed from it.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import { parseJudge } from '../src/judge.ts';
import evals from '../src/plugin.ts';
import { brain } from './helpers/brain.ts';
import { testModel, type Brain } from './helpers/model.ts';
import { evalProject, stable } from './helpers/project.ts';

const judgeBrain: Brain = (asked) => {
  if (!asked.user.startsWith('Rubric:')) return brain(asked);
  const rubric = /^Rubric: (.*)$/m.exec(asked.user)![1]!;
  const answer = asked.user.split('\nAnswer:\n')[1] ?? '';
  const pass = rubric.includes('greets') ? /hello/i.test(answer) : /bonjour/i.test(answer);
  return { text: JSON.stringify({ pass, reason: pass ? 'It does.' : `"${answer}" does not.` }), usage: [30, 9] };
};

const CASES = `
- name: greets
  input: Hello
  expect: { llm_rubric: "The answer greets the user" }
- name: speaks french
  input: Hello
  expect: { llm_rubric: "The answer is in French" }
`;

test('a configured judge grades each rubric; recorded, it replays offline with the same verdicts', async () => {
  const model = await testModel(judgeBrain);
  const project = await evalProject({ modelUrl: model.url });
  try {
    await project.cases({ 'rubric.yaml': CASES });
    const judge = { provider: 'openai', model: 'judge-model' };
    const recorded = await project.run({ mode: 'record', judge });
    assert.equal(recorded.map((r) => [r.name, r.status]), [['greets', 'pass'], ['speaks french', 'fail']]);
    assert.match(recorded[1]!.failure!.evidence, /^the judge said no: "Hello there!" does not\.$/);
    const judged = model.asks.filter((a) => a.user.startsWith('Rubric:'));
    assert.equal(judged.map((a) => a.model), ['judge-model', 'judge-model'], 'the judge\'s model answered');
    assert.match(judged[0]!.system, /You grade the answer of an AI agent against a rubric/);
    assert.match(judged[0]!.user, /Conversation \(user turns\):\n1\. Hello\n\nAnswer:\nHello there!$/);
    const lines = (await readFile(path.join(project.evals(), 'cassettes', 'greets.jsonl'), 'utf8')).trim().split('\n');
    assert.is(lines.length, 2, 'the agent\'s call and the judge\'s');
    await model.close();
    const replayed = await project.run({ judge });
    assert.equal(stable(replayed), stable(recorded), 'the verdicts replay offline');
  } finally {
    await model.close().catch(() => {});
    await project.remove();
  }
});

test('no judge configured: rubrics are skipped and no model is asked to judge', async () => {
  const model = await testModel(judgeBrain);
  const project = await evalProject({ modelUrl: model.url });
  try {
    await project.cases({ 'rubric.yaml': CASES });
    const reports = await project.run({});
    assert.equal(reports.map((r) => [r.status, r.assertions[0]!.skipped]), [
      ['pass', 'no judge is configured (--judge, or evals({ judge }) in oryx.config.ts)'],
      ['pass', 'no judge is configured (--judge, or evals({ judge }) in oryx.config.ts)'],
    ]);
    assert.not.ok(model.asks.some((a) => a.user.startsWith('Rubric:')));
  } finally {
    await model.close();
    await project.remove();
  }
});

test('a judge must be an enabled provider; evals() checks it at start', async () => {
  assert.equal(parseJudge('openai:gpt-4o-mini', ['openai']), { provider: 'openai', model: 'gpt-4o-mini' });
  assert.equal(parseJudge('openai', ['openai']), { provider: 'openai' });
  try {
    parseJudge('opneai:x', ['openai', 'ollama']);
    assert.unreachable('accepted');
  } catch (error) {
    assert.ok(isOryxError(error) && error.code === 'ORYX_E_EVAL_JUDGE_MISSING');
    assert.match(error.message, /provider "opneai", which is not enabled \(did you mean "openai"\?\)/);
  }
  const project = await evalProject({ modelUrl: 'http://127.0.0.1:9/v1', extra: () => [evals({ judge: 'nobody' })] });
  try {
    await project.kernel().then(() => assert.unreachable('started'), (error) => {
      assert.match(String(error.message), /judge names provider "nobody"/);
    });
  } finally {
    await project.remove();
  }
  try {
    evals({ concurrency: 0 });
    assert.unreachable('accepted');
  } catch (error) {
    assert.ok(isOryxError(error) && error.code === 'ORYX_E_EVAL_OPTIONS', String(error));
  }
});

test.run();
