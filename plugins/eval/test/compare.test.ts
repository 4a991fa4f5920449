// --compare runs the same cases live on two models (or a model and a config) and prints pass
// rate, tokens and time side by side; --repeat gives pass rates, held to min_pass_rate.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '@oryxos/command-kit';
import { evalCommand, type EvalFlags } from '../src/cli-run.ts';
import type { SideReport } from '../src/compare.ts';
import { testModel } from './helpers/model.ts';
import { evalProject } from './helpers/project.ts';

const flags = (more: Partial<EvalFlags>): EvalFlags => ({ live: false, replay: false, record: false, repeat: 1, json: true, ...more });

test('two models side by side: pass rate, tokens and time', async () => {
  // The "big" model greets, the "small" one does not, and spends fewer tokens.
  const model = await testModel(({ user, model: m }) => (user === 'Hello' ? (m === 'big' ? { text: 'Hello there!', usage: [100, 20] } : { text: 'Hm.', usage: [50, 5] }) : undefined));
  const project = await evalProject({ modelUrl: model.url });
  const kernel = await project.kernel();
  try {
    await project.cases({ 'c.yaml': '- name: greets\n  input: Hello\n  expect: { answer_contains: Hello }\n- name: short\n  input: Hello\n  expect: { max_tokens: 60 }\n' });
    await writeFile(path.join(project.dir, 'oryx.small.config.ts'), `import { defineConfig } from '@oryxos/kernel';
import openai from '@oryxos/plugin-openai';
import sqlite from '@oryxos/plugin-sqlite';
import tools from '@oryxos/plugin-tools';
export default defineConfig({ plugins: [openai({ baseURL: ${JSON.stringify(model.url)}, apiKey: 'sk-test', defaultModel: 'small' }), sqlite(), tools()] });
`);
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: () => {}, loadConfig: async (f: string) => (await loadConfig({ file: f }))! };
    const { json, failed } = await evalCommand(kernel, kernel.config, flags({ target: 'assistant', compare: ['openai:big', 'small'], json: false }), io);
    const sides = json.items as SideReport[];
    assert.equal(sides.map((s) => [s.label, s.provider, s.model, s.passed, s.runs, s.tokens]), [['openai:big', 'openai', 'big', 1, 2, 240], ['small', undefined, 'small', 1, 2, 110]]);
    assert.equal(sides.map((s) => s.cases.map((c) => c.status)), [['pass', 'fail'], ['fail', 'pass']]);
    assert.ok(failed, 'a failed case on either side fails the command');
    assert.match(out.join('\n'), /pass rate\s+1\/2 \(50%\)\s+1\/2 \(50%\)\ntokens\s+240\s+110\ntime\s+\S+/);
    assert.match(out.join('\n'), /greets\s+pass · 120 tok · \S+ m?s\s+fail · 55 tok/);

    // A config file as a side: the agent runs on that config's plugins (its openai gives the agent's test-model the small answer).
    const withConfig = await evalCommand(kernel, kernel.config, flags({ target: 'assistant', compare: ['big', path.join(project.dir, 'oryx.small.config.ts')] }), io);
    const [big, small] = withConfig.json.items as SideReport[];
    assert.equal([big!.model, big!.passed, small!.config, small!.cases.map((c) => c.status)], ['big', 1, path.join(project.dir, 'oryx.small.config.ts'), ['fail', 'pass']]);
  } finally {
    await kernel.close();
    await model.close();
    await project.remove();
  }
});

test('--repeat gives a pass rate; a case passes at its min_pass_rate', async () => {
  let n = 0;
  const model = await testModel(({ user }) => (user === 'Flip' ? { text: n++ % 2 ? 'tails' : 'heads' } : undefined));
  const project = await evalProject({ modelUrl: model.url });
  try {
    await project.cases({ 'flaky.yaml': `- name: strict
  input: Flip
  expect: { answer_equals: heads }
- name: lenient
  input: Flip
  min_pass_rate: 0.5
  expect: { answer_equals: heads }
` });
    const reports = await project.run({ repeat: 4 });
    assert.equal(reports.map((r) => [r.name, r.status, r.passed, r.runs, r.passRate]), [['strict', 'fail', 2, 4, 0.5], ['lenient', 'pass', 2, 4, 0.5]]);
    assert.match(reports[1]!.failure!.evidence, /the answer is "tails"/, 'a passing flaky case still shows what failed');
    assert.is(reports[0]!.sessions.length, 4);
  } finally {
    await model.close();
    await project.remove();
  }
});

test('usage errors: --record with --repeat, --compare with one side', async () => {
  const project = await evalProject({ modelUrl: 'http://127.0.0.1:9/v1' });
  const kernel = await project.kernel();
  try {
    const io = { out: () => {}, err: () => {}, loadConfig: async () => { throw new Error('no'); } };
    const bad: [Partial<EvalFlags>, RegExp][] = [[{ record: true, repeat: 3 }, /--record records each case once/], [{ compare: ['a'] }, /--compare takes two models or configs \(got 1\)/]];
    for (const [f, message] of bad) {
      await evalCommand(kernel, kernel.config, flags(f), io).then(() => assert.unreachable('accepted'), (error) => {
        assert.is(error.code, 'ORYX_E_CLI_USAGE');
        assert.match(error.message, message);
      });
    }
  } finally {
    await kernel.close();
    await project.remove();
  }
});

test.run();
