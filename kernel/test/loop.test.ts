import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OryxError } from '@oryxos/provider-spec';
import type { Plugin, RunEvent, Tool } from '@oryxos/kernel';
import { echoTool, scripted, testKernel, toolsPlugin } from '@oryxos/kernel/testing';

const echo = echoTool();

test('no tool calls: the first answer is final', async () => {
  const llm = scripted([{ text: 'hello there' }]);
  const t = await testKernel({ plugins: [llm] });
  const r = await t.service.process({ agent: 'assistant', message: 'hi' });
  assert.is(r.answer, 'hello there');
  assert.is(r.stopReason, 'final');
  assert.is(r.iterations, 1);
  const req = llm.requests[0]!;
  assert.is(r.usage.inputTokens, Math.ceil((req.messages[0]!.content.length + 2 + 2) / 4));
  assert.is(r.usage.outputTokens, 3);
  assert.is(req.messages[0]!.role, 'system');
  assert.match(req.messages[0]!.content, 'You are assistant.');
  assert.equal(req.messages.slice(1), [{ role: 'user', content: 'hi' }]);
  assert.is(req.model, 'scripted-model');
  await t.close();
});

test('one tool call: the result goes back to the model as a structured tool message', async () => {
  const llm = scripted([{ toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'ping' } }] }, { text: 'got it' }]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo)] });
  const r = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(r.answer, 'got it');
  assert.is(r.iterations, 2);
  assert.ok(r.usage.inputTokens > 0 && r.usage.outputTokens === 1 + 2, 'usage adds up over both calls');
  const second = llm.requests[1]!.messages;
  assert.equal(second.at(-1), { role: 'tool', toolCallId: 'c1', name: 'echo', content: 'echo: ping' });
  assert.equal(second.at(-2), { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'ping' } }] });
  assert.equal(llm.requests[0]!.tools.map((x) => x.name), ['echo']);
  await t.close();
});

test('many tool calls in one response and across iterations, each result matched by id', async () => {
  const llm = scripted([
    { toolCalls: [{ id: 'a', name: 'echo', args: { text: '1' } }, { id: 'b', name: 'echo', args: { text: '2' } }] },
    { toolCalls: [{ id: 'c', name: 'echo', args: { text: '3' } }] },
    { text: 'all done' },
  ]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo)] });
  const events: string[] = [];
  const r = await t.service.process({ agent: 'assistant', message: 'go', onEvent: (e) => events.push(e.type) });
  assert.is(r.answer, 'all done');
  assert.is(r.iterations, 3);
  const last = llm.requests[2]!.messages.filter((m) => m.role === 'tool');
  assert.equal(last.map((m) => m.role === 'tool' && [m.toolCallId, m.content]), [['a', 'echo: 1'], ['b', 'echo: 2'], ['c', 'echo: 3']]);
  assert.equal(events.filter((e) => e === 'tool_call').length, 3);
  assert.equal(events.filter((e) => e === 'tool_result').length, 3);
  const stored = await t.kernel.service('sessions').messages(r.sessionId);
  assert.equal(stored.map((s) => s.message.role), ['user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant']);
  await t.close();
});

test('max_iterations: one last call without tools gives the answer, committed; stopReason limit', async () => {
  const step = (n: number) => ({ toolCalls: [{ name: 'echo', args: { text: `step ${n}` } }], text: 'still working' });
  const llm = scripted([step(1), step(2), step(3), { text: 'Found steps 1-3; step 4 is unfinished.' }]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo)], agents: { assistant: { tools: ['echo'], settings: { max_iterations: 3 } } } });
  const events: RunEvent[] = [];
  const r = await t.service.process({ agent: 'assistant', message: 'loop', onEvent: (e) => events.push(e) });
  assert.is(r.stopReason, 'limit');
  assert.is(r.answer, 'Found steps 1-3; step 4 is unfinished.');
  assert.equal(r.limit, { name: 'max_iterations', value: 3 });
  assert.is(r.notice, 'stopped at max_iterations (3 model calls)');
  assert.is(r.iterations, 4, 'the final call is one more model call');
  assert.is(llm.requests.length, 4);
  const final = llm.requests[3]!;
  assert.equal(final.tools, [], 'the last request offers no tools');
  assert.equal(llm.requests[2]!.tools.map((x) => x.name), ['echo']);
  assert.is(final.messages.at(-1)!.role, 'system');
  assert.match(final.messages.at(-1)!.content, 'Answer now with what you have, and say plainly what is unfinished');
  assert.match(final.messages.at(-1)!.content, 'max_iterations (3 model calls)');
  assert.ok(events.some((e) => e.type === 'stopping' && e.reason === 'limit'));
  // Every call has its result and the answer is committed like any assistant message.
  const stored = await t.kernel.service('sessions').messages(r.sessionId);
  assert.equal(stored.map((s) => s.message.role), ['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
  assert.equal(stored.at(-1)!.message, { role: 'assistant', content: 'Found steps 1-3; step 4 is unfinished.' });
  await t.close();
});

test('max_iterations: an onLimit tap can replace the final response (no extra model call)', async () => {
  const step = (n: number) => ({ toolCalls: [{ name: 'echo', args: { text: `x${n}` } }] });
  const llm = scripted([step(1), step(2)]);
  const seen: string[] = [];
  const limiter: Plugin = {
    name: 'limiter', version: '1.0.0', kernel: '^1',
    setup(k) {
      k.hooks.onLimit.tapPromise(async ({ last, reason, limit }) => {
        seen.push(`${reason}:${limit?.name}=${limit?.value}`);
        return { ...last!, message: { role: 'assistant', content: `gave up after ${last!.message.toolCalls?.length} call(s)` } };
      });
    },
  };
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo), limiter], agents: { assistant: { tools: ['*'], settings: { max_iterations: 2 } } } });
  const r = await t.service.process({ agent: 'assistant', message: 'loop' });
  assert.is(r.stopReason, 'limit');
  assert.is(r.answer, 'gave up after 1 call(s)');
  assert.is(llm.requests.length, 2);
  assert.equal(seen, ['limit:max_iterations=2']);
  const stored = await t.kernel.service('sessions').messages(r.sessionId);
  assert.equal(stored.at(-1)!.message, { role: 'assistant', content: 'gave up after 1 call(s)' });
  await t.close();
});

test('abort: a signal aborted during the model call stops the run with stopReason aborted', async () => {
  const controller = new AbortController();
  // Abort once the model call is under way (a timer would race the run's start on a busy machine).
  const llm = scripted([() => { setImmediate(() => controller.abort()); return { text: 'too late', delayMs: 5_000 }; }]);
  const t = await testKernel({ plugins: [llm] });
  const r = await t.service.process({ agent: 'assistant', message: 'slow', signal: controller.signal });
  assert.is(r.stopReason, 'aborted');
  assert.is(r.answer, '');
  const stored = await t.kernel.service('sessions').messages(r.sessionId);
  assert.equal(stored.map((s) => s.message.role), ['user']);
  await t.close();
});

test('abort: a signal aborted during a tool stops after that tool with its result recorded', async () => {
  const controller = new AbortController();
  const slow: Tool = {
    name: 'slow', description: 'waits', source: 'plugin', inputSchema: { type: 'object' },
    execute: (_a, ctx) => new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => resolve('stopped'));
      setImmediate(() => controller.abort());
    }),
  };
  const llm = scripted([{ toolCalls: [{ name: 'slow' }] }, { text: 'never' }]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(slow)] });
  const r = await t.service.process({ agent: 'assistant', message: 'go', signal: controller.signal });
  assert.is(r.stopReason, 'aborted');
  assert.is(llm.requests.length, 1);
  const stored = await t.kernel.service('sessions').messages(r.sessionId);
  assert.equal(stored.map((s) => s.message.role), ['user', 'assistant', 'tool']);
  await t.close();
});

test('retryable model errors are retried; final errors end the run with stopReason error', async () => {
  const llm = scripted([
    { error: new OryxError('ORYX_E_LLM_RATE_LIMIT', 'slow down', { retryable: true, retryAfterMs: 5 }) },
    { text: 'ok now' },
    { error: new OryxError('ORYX_E_LLM_AUTH', 'bad key') },
  ]);
  const t = await testKernel({ plugins: [llm] });
  const seen: string[] = [];
  t.kernel.hooks.llmError.tap('test', (e, info) => { seen.push(`${e.code}:${info.attempt}:${info.willRetry}`); });
  const events: RunEvent[] = [];
  const ok = await t.service.process({ agent: 'assistant', message: 'a', onEvent: (e) => events.push(e) });
  assert.is(ok.answer, 'ok now');
  assert.ok(events.some((e) => e.type === 'retry' && e.delayMs >= 5));
  const bad = await t.service.process({ agent: 'assistant', message: 'b' });
  assert.is(bad.stopReason, 'error');
  assert.is(bad.error?.code, 'ORYX_E_LLM_AUTH');
  assert.equal(seen, ['ORYX_E_LLM_RATE_LIMIT:1:true', 'ORYX_E_LLM_AUTH:1:false']);
  await t.close();
});

test('retries stop after maxRetries and the last error is reported', async () => {
  const boom = () => ({ error: new OryxError('ORYX_E_LLM_SERVER', 'HTTP 500', { retryable: true }) });
  const llm = scripted([boom, boom, boom, { text: 'unreached' }], { retry: { maxRetries: 2, baseDelayMs: 1 } });
  const t = await testKernel({ plugins: [llm] });
  const r = await t.service.process({ agent: 'assistant', message: 'x' });
  assert.is(r.stopReason, 'error');
  assert.is(r.error?.code, 'ORYX_E_LLM_SERVER');
  assert.is(llm.requests.length, 3);
  await t.close();
});

test('streaming: tokens are emitted as they come and the answer is whole', async () => {
  const llm = scripted([{ text: 'one two three' }]);
  const t = await testKernel({ plugins: [llm] });
  const tokens: string[] = [];
  const r = await t.service.process({ agent: 'assistant', message: 's', stream: true, onEvent: (e) => { if (e.type === 'token') tokens.push(e.text); } });
  assert.equal(tokens, ['one ', 'two ', 'three']);
  assert.is(r.answer, 'one two three');
  await t.close();
});

test('a session resumes with its history; another agent cannot take it over', async () => {
  const llm = scripted([{ text: 'first' }, { text: 'second' }]);
  const t = await testKernel({ plugins: [llm], agents: { assistant: {}, other: {} } });
  const a = await t.service.process({ agent: 'assistant', message: 'one' });
  const b = await t.service.process({ agent: 'assistant', message: 'two', session: a.sessionId });
  assert.is(b.sessionId, a.sessionId);
  assert.equal(llm.requests[1]!.messages.slice(1).map((m) => m.content), ['one', 'first', 'two']);
  try {
    await t.service.process({ agent: 'other', message: 'x', session: a.sessionId });
    assert.unreachable();
  } catch (e) {
    assert.is((e as OryxError).code, 'ORYX_E_SESSION_AGENT_MISMATCH');
  }
  try {
    await t.service.process({ agent: 'assistant', message: 'x', session: 'nope' });
    assert.unreachable();
  } catch (e) {
    assert.is((e as OryxError).code, 'ORYX_E_SESSION_NOT_FOUND');
  }
  await t.close();
});

test('two runs on one session at once are serialized, never interleaved', async () => {
  const llm = scripted([{ text: 'A' }, { text: 'B', delayMs: 30 }, { text: 'C' }]);
  const t = await testKernel({ plugins: [llm] });
  const first = await t.service.process({ agent: 'assistant', message: 'start' });
  await Promise.all([
    t.service.process({ agent: 'assistant', message: 'x', session: first.sessionId }),
    t.service.process({ agent: 'assistant', message: 'y', session: first.sessionId }),
  ]);
  const stored = await t.kernel.service('sessions').messages(first.sessionId);
  assert.equal(stored.map((s) => s.message.content), ['start', 'A', 'x', 'B', 'y', 'C']);
  await t.close();
});

test('a run aborted while queued behind another writes nothing, and later runs still wait their turn', async () => {
  const llm = scripted([{ text: 'start' }, { text: 'slow', delayMs: 80 }, { text: 'third' }]);
  const t = await testKernel({ plugins: [llm] });
  const { sessionId } = await t.service.process({ agent: 'assistant', message: 'start' });
  const queued = new AbortController();
  const first = t.service.process({ agent: 'assistant', message: 'one', session: sessionId });
  const second = t.service.process({ agent: 'assistant', message: 'two', session: sessionId, signal: queued.signal });
  const third = t.service.process({ agent: 'assistant', message: 'three', session: sessionId });
  setTimeout(() => queued.abort(), 10);
  const [, aborted] = await Promise.all([first, second, third]);
  assert.is(aborted.stopReason, 'aborted');
  assert.is(aborted.iterations, 0);
  const stored = await t.kernel.service('sessions').messages(sessionId);
  assert.equal(stored.map((m) => m.message.content), ['start', 'start', 'one', 'slow', 'three', 'third']);
  await t.close();
});

test.run();
