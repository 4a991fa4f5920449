import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OryxError, isOryxError } from '@oryxos/provider-spec';
import type { Plugin, RunEvent, Tool } from '@oryxos/kernel';
import { echoTool, readmeErrorCodes, scripted, tempProject, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import replay, { ERROR_CODES } from '../src/index.ts';

const agents = { assistant: { provider: 'replay', tools: ['*'] } };

/** A temp project folder shared by the recording and the replaying kernel. */
async function project() {
  const dir = await tempProject('replay-');
  return { dir, file: path.join(dir, '.oryxos', 'cassettes', 'demo.jsonl'), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

async function lines(file: string): Promise<any[]> {
  return (await readFile(file, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
}

function upstream() {
  return scripted([
    { toolCalls: [{ name: 'echo', args: { text: 'one' } }], usage: { inputTokens: 11, outputTokens: 2 } },
    { text: 'The echo said one.', usage: { inputTokens: 20, outputTokens: 6 } },
    { toolCalls: [{ name: 'echo', args: { text: 'two' } }] },
    { text: 'And now two.' },
  ], { name: 'upstream' });
}

test('record, then replay gives the same answers with the target provider gone (tools run for real)', async () => {
  const p = await project();
  try {
    const llm = upstream();
    const rec = await testKernel({ dir: p.dir, plugins: [llm, replay({ mode: 'record', cassette: 'demo', target: 'upstream' }), toolsPlugin(echoTool())], agents });
    const first = await rec.service.process({ agent: 'assistant', message: 'say one' });
    const second = await rec.service.process({ agent: 'assistant', message: 'now two', session: first.sessionId });
    await rec.close();
    assert.is(first.answer, 'The echo said one.');
    assert.is(second.answer, 'And now two.');
    assert.is(llm.requests.length, 4);

    const recorded = await lines(p.file);
    assert.is(recorded.length, 4);
    assert.equal(recorded[0].request, { messages: [{ role: 'user', content: 'say one' }] });
    assert.equal(recorded[0].response.toolCalls, [{ name: 'echo', args: { text: 'one' } }]);
    assert.equal(recorded[0].response.usage, { inputTokens: 11, outputTokens: 2 });
    assert.equal(recorded[1].request.messages, [
      { role: 'user', content: 'say one' },
      { role: 'assistant', toolCalls: [{ name: 'echo', args: { text: 'one' } }] },
      { role: 'tool', name: 'echo' },
    ]);
    assert.is(recorded[3].request.messages.length, 7, 'the second run carries the first turn');

    const tools = echoTool();
    const rep = await testKernel({ dir: p.dir, plugins: [replay({ cassette: 'demo' }), toolsPlugin(tools)], agents });
    try {
      assert.equal(rep.kernel.providerNames, ['replay']);
      const a = await rep.service.process({ agent: 'assistant', message: 'say one' });
      const b = await rep.service.process({ agent: 'assistant', message: 'now two', session: a.sessionId });
      assert.is(a.answer, 'The echo said one.');
      assert.is(b.answer, 'And now two.');
      assert.equal(a.usage, { inputTokens: 31, outputTokens: 8 });
      assert.equal(tools.calls, [{ text: 'one' }, { text: 'two' }], 'the tools ran for real');
      const stored = (await rep.kernel.service('sessions').messages(a.sessionId)).map((m) => m.message);
      const call = stored.find((m) => m.role === 'assistant' && m.toolCalls?.length);
      const result = stored.find((m) => m.role === 'tool');
      assert.ok(call?.role === 'assistant' && result?.role === 'tool' && call.toolCalls![0]!.id === result.toolCallId, 'replayed calls get ids their results match');
    } finally { await rep.close(); }
  } finally { await p.cleanup(); }
});

test('replay streams the recorded text as tokens', async () => {
  const p = await project();
  try {
    const rec = await testKernel({ dir: p.dir, plugins: [upstream(), replay({ mode: 'record', cassette: 'demo', target: 'upstream' }), toolsPlugin(echoTool())], agents });
    const tokensRecorded: string[] = [];
    await rec.service.process({ agent: 'assistant', message: 'say one', stream: true, onEvent: (e) => { if (e.type === 'token') tokensRecorded.push(e.text); } });
    await rec.close();
    assert.is((await lines(p.file)).length, 2, 'streamed calls are recorded too');
    const rep = await testKernel({ dir: p.dir, plugins: [replay({ cassette: 'demo' }), toolsPlugin(echoTool())], agents });
    try {
      const events: RunEvent[] = [];
      const r = await rep.service.process({ agent: 'assistant', message: 'say one', stream: true, onEvent: (e) => events.push(e) });
      assert.is(r.answer, 'The echo said one.');
      const tokens = events.flatMap((e) => (e.type === 'token' ? [e.text] : []));
      assert.equal(tokens, ['The ', 'echo ', 'said ', 'one.']);
      assert.equal(tokens, tokensRecorded);
    } finally { await rep.close(); }
  } finally { await p.cleanup(); }
});

test('a different user message diverges clearly, naming the first differing message and how to re-record', async () => {
  const p = await project();
  try {
    const rec = await testKernel({ dir: p.dir, plugins: [upstream(), replay({ mode: 'record', cassette: 'demo', target: 'upstream' }), toolsPlugin(echoTool())], agents });
    await rec.service.process({ agent: 'assistant', message: 'say one' });
    await rec.close();
    const rep = await testKernel({ dir: p.dir, plugins: [replay({ cassette: 'demo' }), toolsPlugin(echoTool())], agents });
    try {
      const r = await rep.service.process({ agent: 'assistant', message: 'say three' });
      assert.is(r.stopReason, 'error');
      assert.is(r.error?.code, 'ORYX_E_REPLAY_DIVERGED');
      assert.match(r.error!.message, 'first difference at message 1: this run has user "say three", the cassette');
      assert.match(r.error!.message, 'demo.jsonl:1) has user "say one"');
      assert.match(r.error!.hint!, "mode: 'record', cassette: 'demo'");
    } finally { await rep.close(); }
  } finally { await p.cleanup(); }
});

test('a tool that now fails diverges at its result', async () => {
  const p = await project();
  try {
    const rec = await testKernel({ dir: p.dir, plugins: [upstream(), replay({ mode: 'record', cassette: 'demo', target: 'upstream' }), toolsPlugin(echoTool())], agents });
    await rec.service.process({ agent: 'assistant', message: 'say one' });
    await rec.close();
    const broken: Tool = { name: 'echo', description: 'Echo', source: 'plugin', inputSchema: { type: 'object' }, async execute() { throw new Error('disk full'); } };
    const brokenTools: Plugin = { name: 'broken', version: '1.0.0', kernel: '^1', setup(k) { k.registerTool(broken); } };
    const rep = await testKernel({ dir: p.dir, plugins: [replay({ cassette: 'demo' }), brokenTools], agents });
    try {
      const r = await rep.service.process({ agent: 'assistant', message: 'say one' });
      assert.is(r.error?.code, 'ORYX_E_REPLAY_DIVERGED');
      assert.match(r.error!.message, 'message 3: this run has tool result of echo (an error)');
      assert.match(r.error!.message, 'has tool result of echo (ok)');
    } finally { await rep.close(); }
  } finally { await p.cleanup(); }
});

test('a hand-written cassette: comments, any key order, notes ignored; the last matching line wins', async () => {
  const p = await project();
  try {
    await mkdir(path.dirname(p.file), { recursive: true });
    await writeFile(p.file, [
      '# A hand-written cassette: one JSON object per line.',
      '{"request":{"messages":[{"role":"user","content":"hi"}]},"response":{"content":"old answer"}}',
      '',
      '{"request":{"messages":[{"role":"user","content":"add"}]},"response":{"toolCalls":[{"name":"echo","args":{"text":"x"}}]}}',
      '{"request":{"messages":[{"role":"user","content":"add"},{"role":"assistant","content":"a note, not matched","toolCalls":[{"args":{"text":"x"},"name":"echo"}]},{"role":"tool","name":"echo"}]},"response":{"content":"done"}}',
      '{"request":{"messages":[{"content":"hi","role":"user"}]},"response":{"content":"new answer"},"model":"gpt-test"}',
    ].join('\n'));
    const tools = echoTool();
    const t = await testKernel({ dir: p.dir, plugins: [replay({ cassette: 'demo' }), toolsPlugin(tools)], agents });
    try {
      assert.is(t.kernel.provider('replay').defaultModel, 'gpt-test', 'known at start: the last model in the cassette');
      assert.is((await t.service.process({ agent: 'assistant', message: 'hi' })).answer, 'new answer');
      assert.is((await t.service.process({ agent: 'assistant', message: 'add' })).answer, 'done');
      assert.equal(tools.calls, [{ text: 'x' }]);
      assert.is(t.kernel.provider('replay').defaultModel, 'gpt-test');
    } finally { await t.close(); }
  } finally { await p.cleanup(); }
});

test('record mode: target errors pass through with its retry policy and are not recorded', async () => {
  const p = await project();
  try {
    const llm = scripted([
      { error: new OryxError('ORYX_E_LLM_SERVER', 'boom', { retryable: true }) },
      { text: 'after retry' },
    ], { name: 'upstream', retry: { maxRetries: 1, baseDelayMs: 1 } });
    const t = await testKernel({ dir: p.dir, plugins: [llm, replay({ mode: 'record', cassette: 'demo', target: 'upstream' })], agents });
    try {
      assert.equal(t.kernel.provider('replay').retry, { maxRetries: 1, baseDelayMs: 1 });
      assert.is(t.kernel.provider('replay').defaultModel, 'scripted-model');
      const r = await t.service.process({ agent: 'assistant', message: 'hi' });
      assert.is(r.answer, 'after retry');
      const recorded = await lines(p.file);
      assert.is(recorded.length, 1);
      assert.is(recorded[0].response.content, 'after retry');
    } finally { await t.close(); }
  } finally { await p.cleanup(); }
});

test('a missing cassette and a broken line are clear errors', async () => {
  const p = await project();
  try {
    const t = await testKernel({ dir: p.dir, plugins: [replay({ cassette: 'demo' })], agents });
    try {
      let r = await t.service.process({ agent: 'assistant', message: 'hi' });
      assert.is(r.error?.code, 'ORYX_E_REPLAY_CASSETTE_NOT_FOUND');
      assert.match(r.error!.message, path.join('cassettes', 'demo.jsonl'));
      assert.match(r.error!.hint!, "mode: 'record'");
      await mkdir(path.dirname(p.file), { recursive: true });
      await writeFile(p.file, '{"request":{"messages":[{"role":"user","content":"hi"}]},"response":{"content":"ok"}}\n{"request": nope}\n');
      r = await t.service.process({ agent: 'assistant', message: 'hi' });
      assert.is(r.error?.code, 'ORYX_E_REPLAY_CASSETTE_INVALID');
      assert.match(r.error!.message, 'demo.jsonl:2: not valid JSON');
      await writeFile(p.file, '{"request":{"messages":[{"role":"system","content":"x"}]},"response":{}}\n');
      r = await t.service.process({ agent: 'assistant', message: 'hi' });
      assert.match(r.error!.message, 'role must be user, assistant or tool');
    } finally { await t.close(); }
  } finally { await p.cleanup(); }
});

test('options are validated at once; a missing target fails at start naming it', async () => {
  const code = (fn: () => unknown) => { try { fn(); } catch (e) { assert.ok(isOryxError(e)); return e; } throw new Error('no throw'); };
  let e = code(() => replay({ mode: 'record', cassette: 'demo' }));
  assert.is(e.code, 'ORYX_E_REPLAY_OPTIONS');
  assert.match(e.message, 'target is required in record mode');
  e = code(() => replay({ mode: 'replay' } as never));
  assert.match(e.message, 'cassette must be');
  e = code(() => replay({ mode: 'play' as never, cassette: 'x' }));
  assert.match(e.message, 'mode must be');
  e = code(() => replay({ cassette: 'has space' }));
  assert.match(e.message, 'cassette must be a name');
  e = code(() => replay({ cassette: 'x', target: 'replay', mode: 'record' }));
  assert.match(e.message, 'another provider');
  assert.is(replay({ cassette: 'x', name: 'rp' }).name, 'replay:rp');

  // A kernel that fails to start is never closed, so the folder is ours to remove.
  const p = await project();
  const start = await testKernel({ dir: p.dir, plugins: [replay({ mode: 'record', cassette: 'x', target: 'openai' })], agents }).then(
    async (t) => { await t.close(); return undefined; }, (error) => error,
  ).finally(p.cleanup);
  assert.ok(isOryxError(start), 'the kernel refused to start');
  assert.match(start.message, 'records provider "openai", which is not enabled');
  assert.is((start.cause as OryxError).code, 'ORYX_E_REPLAY_TARGET_MISSING');
});

test('a cassette path is resolved against the project folder', async () => {
  const p = await project();
  try {
    const file = path.join(p.dir, 'fixtures', 'x.jsonl');
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '{"request":{"messages":[{"role":"user","content":"hi"}]},"response":{"content":"from a path"}}\n');
    const t = await testKernel({ dir: p.dir, plugins: [replay({ cassette: 'fixtures/x.jsonl' })], agents });
    try {
      assert.is((await t.service.process({ agent: 'assistant', message: 'hi' })).answer, 'from a path');
    } finally { await t.close(); }
  } finally { await p.cleanup(); }
});

test('the README lists exactly the exported error codes', async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  assert.equal(readmeErrorCodes(readme), { ...ERROR_CODES });
});

test.run();
