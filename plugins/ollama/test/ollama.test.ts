import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { STAGE, type OryxError, type RunEvent } from '@oryxos/kernel';
import { echoTool, testKernel, toolsPlugin, type TestKernel } from '@oryxos/kernel/testing';
import ollama from '../src/index.ts';
import { LLM_HINTS } from '../src/errors.ts';
import type { OllamaOptions } from '../src/options.ts';
import { ollamaServer, chatResponse, part, donePart, type Reply } from './helpers/ollama-server.ts';

interface Attempt { code: string; attempt: number; willRetry: boolean; retryable: boolean; retryAfterMs?: number; message: string; hint?: string; status?: unknown }

async function setup(script: Parameters<typeof ollamaServer>[0], options: OllamaOptions = {}) {
  const server = await ollamaServer(script);
  const tools = echoTool();
  const attempts: Attempt[] = [];
  const observer = {
    name: 'observer', version: '1.0.0', kernel: '^1',
    setup(k: TestKernel['kernel']) {
      k.hooks.llmError.tapPromise({ name: 'observer', stage: STAGE.OBSERVE }, async (e: OryxError, info) => {
        attempts.push({ code: e.code, attempt: info.attempt, willRetry: info.willRetry, retryable: e.retryable, retryAfterMs: e.retryAfterMs, message: e.message, hint: e.hint, status: e.data?.status });
      });
    },
  };
  const t = await testKernel({ plugins: [ollama({ host: server.url, defaultModel: 'm', retryBaseDelayMs: 1, ...options }), toolsPlugin(tools), observer] });
  return { server, tools, attempts, t, cleanup: async () => { await t.close(); await server.close(); } };
}

const echo = (text: string) => ({ name: 'echo', args: { text } });

test('tool calls get stable ids and round-trip over several iterations, usage summed', async () => {
  const script = (): Reply[] => [
    { json: chatResponse({ toolCalls: [echo('one')], usage: [11, 2] }) },
    { json: chatResponse({ content: 'thinking', toolCalls: [echo('two')], usage: [20, 3] }) },
    { json: chatResponse({ content: 'done', usage: [30, 4] }) },
  ];
  const idsPerRun: string[][] = [];
  for (let run = 0; run < 2; run++) {
    const s = await setup(script(), { keepAlive: '10m', modelOptions: { num_ctx: 8192 } });
    try {
      const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
      assert.is(r.answer, 'done');
      assert.is(r.iterations, 3);
      assert.equal(r.usage, { inputTokens: 61, outputTokens: 9 });
      assert.equal(s.tools.calls, [{ text: 'one' }, { text: 'two' }]);
      const first = s.server.requests[0]!;
      assert.is(first.path, '/api/chat');
      assert.is(first.body.stream, false);
      assert.is(first.body.keep_alive, '10m');
      assert.equal(first.body.options, { num_ctx: 8192 });
      assert.equal(first.body.tools[0].function.name, 'echo');
      assert.equal(first.body.tools[0].function.parameters.required, ['text']);
      assert.equal(s.server.requests[2]!.body.messages.slice(1), [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '', tool_calls: [{ function: { name: 'echo', arguments: { text: 'one' } } }] },
        { role: 'tool', content: 'echo: one', tool_name: 'echo' },
        { role: 'assistant', content: 'thinking', tool_calls: [{ function: { name: 'echo', arguments: { text: 'two' } } }] },
        { role: 'tool', content: 'echo: two', tool_name: 'echo' },
      ]);
      const stored = (await s.t.kernel.service('sessions').messages(r.sessionId)).map((m) => m.message);
      const ids = stored.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []));
      const resultIds = stored.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : []));
      assert.is(ids.length, 2);
      assert.ok(ids.every((id) => /^call_[0-9a-f]{24}$/.test(id)));
      assert.is.not(ids[0], ids[1]);
      assert.equal(resultIds, ids, 'each result is paired with its call');
      idsPerRun.push(ids);
    } finally { await s.cleanup(); }
  }
  assert.equal(idsPerRun[0], idsPerRun[1], 'the same conversation gives the same ids');
});

test('several tool calls in one response: distinct ids, results in call order with tool_name', async () => {
  const s = await setup([
    { json: chatResponse({ toolCalls: [echo('x'), echo('x'), echo('y')] }) },
    { json: chatResponse({ content: 'ok' }) },
  ]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.answer, 'ok');
    assert.equal(s.tools.calls, [{ text: 'x' }, { text: 'x' }, { text: 'y' }]);
    const sent = s.server.requests[1]!.body.messages.filter((m: any) => m.role === 'tool');
    assert.equal(sent, [
      { role: 'tool', content: 'echo: x', tool_name: 'echo' },
      { role: 'tool', content: 'echo: x', tool_name: 'echo' },
      { role: 'tool', content: 'echo: y', tool_name: 'echo' },
    ]);
    const stored = (await s.t.kernel.service('sessions').messages(r.sessionId)).map((m) => m.message);
    const ids = stored.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []));
    assert.is(new Set(ids).size, 3, 'identical calls still get distinct ids');
  } finally { await s.cleanup(); }
});

test('streaming: text deltas as tokens, tool calls from the stream, usage from the final part', async () => {
  const s = await setup([
    { ndjson: [part('Let me '), part('check.'), part('', [echo('alpha'), echo('beta')]), donePart([40, 12])] },
    { ndjson: [part('All '), part('done.'), donePart([50, 5])] },
  ]);
  try {
    const events: RunEvent[] = [];
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true, onEvent: (e) => events.push(e) });
    assert.is(r.answer, 'All done.');
    assert.equal(r.usage, { inputTokens: 90, outputTokens: 17 });
    assert.equal(s.tools.calls, [{ text: 'alpha' }, { text: 'beta' }]);
    assert.equal(events.filter((e) => e.type === 'token').map((e) => (e as { text: string }).text), ['Let me ', 'check.', 'All ', 'done.']);
    assert.is(s.server.requests[0]!.body.stream, true);
    const assistant = s.server.requests[1]!.body.messages.find((m: any) => m.role === 'assistant');
    assert.equal(assistant, { role: 'assistant', content: 'Let me check.', tool_calls: [
      { function: { name: 'echo', arguments: { text: 'alpha' } } }, { function: { name: 'echo', arguments: { text: 'beta' } } },
    ] });
  } finally { await s.cleanup(); }
});

test('429 with retry-after is retried after the server\'s wait, then succeeds', async () => {
  const s = await setup([
    { status: 429, headers: { 'retry-after': '1' }, json: { error: 'server busy, please try again' } },
    { json: chatResponse({ content: 'fine' }) },
  ]);
  try {
    const retries: RunEvent[] = [];
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', onEvent: (e) => { if (e.type === 'retry') retries.push(e); } });
    assert.is(r.answer, 'fine');
    assert.is(s.server.requests.length, 2);
    assert.equal(s.attempts.map((a) => [a.code, a.willRetry, a.retryAfterMs, a.status]), [['ORYX_E_LLM_RATE_LIMIT', true, 1000, 429]]);
    assert.ok((retries[0] as { delayMs: number }).delayMs >= 1000);
  } finally { await s.cleanup(); }
});

test('500 on every attempt: 3 attempts, then a clear error', async () => {
  const fail: Reply = { status: 500, json: { error: 'llama runner process has terminated' } };
  const s = await setup([fail, fail, fail]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.error?.code, 'ORYX_E_LLM_SERVER');
    assert.match(r.error!.message, 'provider "ollama" (model m): server error (HTTP 500): llama runner process has terminated');
    assert.is(s.server.requests.length, 3);
    assert.equal(s.attempts.map((a) => [a.attempt, a.willRetry]), [[1, true], [2, true], [3, false]]);
  } finally { await s.cleanup(); }
});

test('a proxy\'s plain-text 502 is a retryable server error too', async () => {
  const s = await setup([{ status: 502, text: 'Bad Gateway' }, { json: chatResponse({ content: 'through' }) }]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.answer, 'through');
    assert.equal(s.attempts.map((a) => [a.code, a.status]), [['ORYX_E_LLM_SERVER', 502]]);
    assert.match(s.attempts[0]!.message, 'Bad Gateway');
  } finally { await s.cleanup(); }
});

test('401 is final: one attempt', async () => {
  const s = await setup([{ status: 401, json: { error: 'unauthorized' } }]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.error?.code, 'ORYX_E_LLM_AUTH');
    assert.match(r.error!.message, 'provider "ollama" (model m)');
    assert.match(r.error!.hint!, 'headers');
    assert.is(s.server.requests.length, 1);
    assert.equal(s.attempts.map((a) => a.willRetry), [false]);
  } finally { await s.cleanup(); }
});

test('a model that is not pulled: final, and the hint says ollama pull', async () => {
  const s = await setup([{ status: 404, json: { error: 'model "m" not found, try pulling it first' } }]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.error?.code, 'ORYX_E_LLM_NOT_FOUND');
    assert.match(r.error!.message, 'not found, try pulling it first');
    assert.match(r.error!.hint!, 'ollama pull m');
    assert.is(s.server.requests.length, 1);
  } finally { await s.cleanup(); }
});

test('timeout: a server that never answers fails with ORYX_E_LLM_TIMEOUT', async () => {
  const s = await setup([{ hang: true }, { hang: true }], { firstByteTimeoutMs: 150, maxRetries: 1 });
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.error?.code, 'ORYX_E_LLM_TIMEOUT');
    assert.match(r.error!.message, s.server.url);
    assert.match(r.error!.hint!, 'firstByteTimeoutMs');
    assert.is(s.server.requests.length, 2);
    assert.equal(s.attempts.map((a) => a.willRetry), [true, false]);
  } finally { await s.cleanup(); }
});

test('abort mid-stream cancels the HTTP request: the server sees the connection close', async () => {
  const s = await setup([{ ndjson: [part('Hel'), part('lo')], hold: true }]);
  try {
    const controller = new AbortController();
    const tokens: string[] = [];
    const r = await s.t.service.process({
      agent: 'assistant', message: 'go', stream: true, signal: controller.signal,
      onEvent: (e) => { if (e.type === 'token') { tokens.push(e.text); if (tokens.length === 2) controller.abort(); } },
    });
    assert.is(r.stopReason, 'aborted');
    assert.equal(tokens, ['Hel', 'lo']);
    await s.server.closedEarlyOnce;
    assert.is(s.server.closedEarly, 1);
  } finally { await s.cleanup(); }
});

test('a stream that goes silent for timeoutMs is cut with ORYX_E_LLM_TIMEOUT (not retried: tokens were shown)', async () => {
  const s = await setup([{ ndjson: [part('Hel')], hold: true }], { timeoutMs: 200 });
  try {
    const tokens: string[] = [];
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true, onEvent: (e) => { if (e.type === 'token') tokens.push(e.text); } });
    assert.is(r.error?.code, 'ORYX_E_LLM_TIMEOUT');
    assert.match(r.error!.message, 'went silent');
    assert.equal(tokens, ['Hel']);
    assert.is(s.server.requests.length, 1);
    await s.server.closedEarlyOnce;
  } finally { await s.cleanup(); }
});

test('abort of a non-streamed call cancels the HTTP request too', async () => {
  const s = await setup([{ hang: true }]);
  try {
    const controller = new AbortController();
    const pending = s.t.service.process({ agent: 'assistant', message: 'go', signal: controller.signal });
    while (s.server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    const r = await pending;
    assert.is(r.stopReason, 'aborted');
    await s.server.closedEarlyOnce;
    assert.is(s.server.closedEarly, 1);
  } finally { await s.cleanup(); }
});

test('malformed tool arguments become an error tool result and the loop goes on', async () => {
  const s = await setup([
    { json: chatResponse({ toolCalls: [{ name: 'echo', args: '{"text": "oops' }] }) },
    { json: chatResponse({ toolCalls: [echo('fixed')] }) },
    { json: chatResponse({ content: 'recovered' }) },
  ]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.answer, 'recovered');
    assert.equal(s.tools.calls, [{ text: 'fixed' }]);
    const messages = s.server.requests[1]!.body.messages;
    const result = messages.find((m: any) => m.role === 'tool');
    assert.is(result.tool_name, 'echo');
    assert.match(result.content, 'not valid JSON');
    assert.match(result.content, '{"text": "oops');
  } finally { await s.cleanup(); }
});

test('an error line inside the stream is a retryable server error', async () => {
  const s = await setup([
    { ndjson: [{ error: 'an error was encountered while running the model' }] },
    { ndjson: [part('ok'), donePart([1, 1])] },
  ]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true });
    assert.is(r.answer, 'ok');
    assert.equal(s.attempts.map((a) => [a.code, a.willRetry]), [['ORYX_E_LLM_SERVER', true]]);
    assert.match(s.attempts[0]!.message, 'an error was encountered while running the model');
  } finally { await s.cleanup(); }
});

test('a connection reset is retried', async () => {
  const s = await setup([{ destroy: true }, { json: chatResponse({ content: 'back' }) }]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.answer, 'back');
    assert.equal(s.attempts.map((a) => [a.code, a.willRetry]), [['ORYX_E_LLM_CONNECTION', true]]);
  } finally { await s.cleanup(); }
});

test('an unreachable Ollama names the URL and says how to fix it', async () => {
  const gone = await ollamaServer([]);
  await gone.close();
  const s = await setup([], { host: gone.url, maxRetries: 0 });
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.error?.code, 'ORYX_E_LLM_UNREACHABLE');
    assert.match(r.error!.message, `could not reach ${gone.url}`);
    assert.match(r.error!.hint!, 'OLLAMA_HOST');
  } finally { await s.cleanup(); }
});

test('an answer that is not an Ollama chat response is ORYX_E_LLM_BAD_RESPONSE', async () => {
  const s = await setup([{ json: { hello: 'world' } }]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.error?.code, 'ORYX_E_LLM_BAD_RESPONSE');
    assert.match(r.error!.message, /^provider "ollama" \(model m\): the answer from http:\/\/127\.0\.0\.1:\d+ has no message$/);
    assert.is(r.error!.hint, LLM_HINTS.ORYX_E_LLM_BAD_RESPONSE);
    assert.equal(s.attempts.map((a) => [a.code, a.willRetry]), [['ORYX_E_LLM_BAD_RESPONSE', false]], 'final: not retried');
  } finally { await s.cleanup(); }
});

test.run();
