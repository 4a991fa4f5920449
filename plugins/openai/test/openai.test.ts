import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { STAGE, isOryxError, type OryxError, type RunEvent } from '@oryxos/kernel';
import { echoTool, testKernel, toolsPlugin, type TestKernel } from '@oryxos/kernel/testing';
import openai from '../src/index.ts';
import { LLM_HINTS } from '../src/errors.ts';
import type { OpenAIOptions } from '../src/options.ts';
import { openaiServer, completion, chunk, usageChunk, textStream, type OpenAIServer, type Reply } from './helpers/openai-server.ts';

interface Attempt { code: string; attempt: number; willRetry: boolean; retryable: boolean; retryAfterMs?: number; message: string; hint?: string; status?: unknown }

/** A kernel with the openai plugin pointed at a loopback server, an echo tool, and a log of failed attempts. */
async function setup(script: Reply[], options: OpenAIOptions = {}) {
  const server = await openaiServer(script);
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
  const t = await testKernel({
    plugins: [openai({ baseURL: server.url, apiKey: 'sk-test', defaultModel: 'm', retryBaseDelayMs: 1, ...options }), toolsPlugin(tools), observer],
  });
  const cleanup = async () => { await t.close(); await server.close(); };
  return { server, tools, attempts, t, cleanup };
}

const call = (id: string, text: string) => ({ id, name: 'echo', args: { text } });

test('tool calls with ids round-trip over several iterations, usage summed', async () => {
  const s = await setup([
    { json: completion({ toolCalls: [call('call_a', 'one')], usage: [11, 2] }) },
    { json: completion({ content: 'thinking', toolCalls: [call('call_b', 'two')], usage: [20, 3] }) },
    { json: completion({ content: 'done', usage: [30, 4] }) },
  ]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.stopReason, 'final');
    assert.is(r.answer, 'done');
    assert.is(r.iterations, 3);
    assert.equal(r.usage, { inputTokens: 61, outputTokens: 9 });
    assert.equal(s.tools.calls, [{ text: 'one' }, { text: 'two' }]);
    assert.is(s.server.requests.length, 3);
    const first = s.server.requests[0]!;
    assert.is(first.path, '/v1/chat/completions');
    assert.is(first.headers.authorization, 'Bearer sk-test');
    assert.is(first.body.model, 'm');
    assert.is(first.body.stream, undefined);
    assert.equal(first.body.tools, [{ type: 'function', function: {
      name: 'echo', description: 'Echo text back',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    } }]);
    assert.is(first.body.messages[0].role, 'system');
    assert.equal(first.body.messages.slice(1), [{ role: 'user', content: 'go' }]);
    const third = s.server.requests[2]!.body.messages.slice(1);
    assert.equal(third, [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'echo', arguments: '{"text":"one"}' } }] },
      { role: 'tool', tool_call_id: 'call_a', content: 'echo: one' },
      { role: 'assistant', content: 'thinking', tool_calls: [{ id: 'call_b', type: 'function', function: { name: 'echo', arguments: '{"text":"two"}' } }] },
      { role: 'tool', tool_call_id: 'call_b', content: 'echo: two' },
    ]);
    const stored = await s.t.kernel.service('sessions').messages(r.sessionId);
    const assistant = stored.map((m) => m.message).find((m) => m.role === 'assistant');
    assert.equal(assistant, { role: 'assistant', content: '', toolCalls: [{ id: 'call_a', name: 'echo', args: { text: 'one' } }] });
  } finally { await s.cleanup(); }
});

test('several tool calls in one response run in order and go back with their ids', async () => {
  const s = await setup([
    { json: completion({ toolCalls: [call('c1', 'x'), call('c2', 'y'), { id: 'c3', name: 'echo', args: '' }] }) },
    { json: completion({ content: 'ok' }) },
  ]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.answer, 'ok');
    assert.equal(s.tools.calls, [{ text: 'x' }, { text: 'y' }]);
    const tools = s.server.requests[1]!.body.messages.filter((m: any) => m.role === 'tool');
    assert.equal(tools.map((m: any) => m.tool_call_id), ['c1', 'c2', 'c3']);
    assert.equal(tools.map((m: any) => m.content).slice(0, 2), ['echo: x', 'echo: y']);
    // An empty argument string means {} and fails schema validation (text is required), not JSON parsing.
    assert.match(tools[2].content, /Invalid arguments for echo/);
  } finally { await s.cleanup(); }
});

test('streaming: text deltas as tokens, tool-call argument fragments reassembled, usage captured', async () => {
  const s = await setup([
    { sse: [
      chunk({ role: 'assistant', content: 'Let me ' }),
      chunk({ content: 'check.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_s1', type: 'function', function: { name: 'echo', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"te' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_s2', type: 'function', function: { name: 'echo', arguments: '{"text"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'xt":"al' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: ':"beta"}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'pha"}' } }] }),
      chunk({}, 'tool_calls'),
      usageChunk(40, 12),
    ] },
    { sse: textStream(['All ', 'done', '.'], [50, 5]) },
  ]);
  try {
    const events: RunEvent[] = [];
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true, onEvent: (e) => events.push(e) });
    assert.is(r.answer, 'All done.');
    assert.equal(r.usage, { inputTokens: 90, outputTokens: 17 });
    assert.equal(s.tools.calls, [{ text: 'alpha' }, { text: 'beta' }]);
    assert.equal(events.filter((e) => e.type === 'token').map((e) => (e as { text: string }).text), ['Let me ', 'check.', 'All ', 'done', '.']);
    const req = s.server.requests[0]!.body;
    assert.is(req.stream, true);
    assert.equal(req.stream_options, { include_usage: true });
    const second = s.server.requests[1]!.body.messages;
    assert.equal(second.find((m: any) => m.role === 'assistant'), {
      role: 'assistant', content: 'Let me check.', tool_calls: [
        { id: 'call_s1', type: 'function', function: { name: 'echo', arguments: '{"text":"alpha"}' } },
        { id: 'call_s2', type: 'function', function: { name: 'echo', arguments: '{"text":"beta"}' } },
      ],
    });
  } finally { await s.cleanup(); }
});

test('429 with retry-after is retried after the server\'s wait, then succeeds', async () => {
  const s = await setup([
    { status: 429, headers: { 'retry-after': '1' }, json: { error: { message: 'Slow down', type: 'rate_limit_exceeded' } } },
    { json: completion({ content: 'fine' }) },
  ]);
  try {
    const retries: RunEvent[] = [];
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', onEvent: (e) => { if (e.type === 'retry') retries.push(e); } });
    assert.is(r.answer, 'fine');
    assert.is(s.server.requests.length, 2);
    assert.is(s.attempts.length, 1);
    assert.is(s.attempts[0]!.code, 'ORYX_E_LLM_RATE_LIMIT');
    assert.is(s.attempts[0]!.willRetry, true);
    assert.is(s.attempts[0]!.retryAfterMs, 1000);
    assert.is(s.attempts[0]!.status, 429);
    assert.match(s.attempts[0]!.message, 'Slow down');
    assert.is(retries.length, 1);
    assert.ok((retries[0] as { delayMs: number }).delayMs >= 1000, 'the wait honours retry-after');
  } finally { await s.cleanup(); }
});

test('500 on every attempt: 3 attempts, then a clear final error', async () => {
  const fail: Reply = { status: 500, json: { error: { message: 'The server had an error', type: 'server_error' } } };
  const s = await setup([fail, fail, fail, { json: completion({ content: 'never' }) }]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.stopReason, 'error');
    assert.is(r.error?.code, 'ORYX_E_LLM_SERVER');
    assert.match(r.error!.message, 'provider "openai" (model m)');
    assert.match(r.error!.message, 'HTTP 500');
    assert.match(r.error!.message, 'The server had an error');
    assert.is(s.server.requests.length, 3);
    assert.equal(s.attempts.map((a) => [a.attempt, a.willRetry]), [[1, true], [2, true], [3, false]]);
  } finally { await s.cleanup(); }
});

test('maxRetries is configurable: 0 means one attempt', async () => {
  const fail: Reply = { status: 503, json: { error: { message: 'overloaded' } } };
  const s = await setup([fail, fail], { maxRetries: 0 });
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.error?.code, 'ORYX_E_LLM_SERVER');
    assert.is(s.server.requests.length, 1);
  } finally { await s.cleanup(); }
});

test('401 is final: one attempt, the message names provider and model, the hint the key', async () => {
  const s = await setup([{ status: 401, json: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } }]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.error?.code, 'ORYX_E_LLM_AUTH');
    assert.match(r.error!.message, 'provider "openai" (model m): authentication failed (HTTP 401): Incorrect API key provided');
    assert.match(r.error!.hint!, 'OPENAI_API_KEY');
    assert.is(s.server.requests.length, 1);
    assert.equal(s.attempts.map((a) => [a.attempt, a.willRetry, a.retryable]), [[1, false, false]]);
  } finally { await s.cleanup(); }
});

test('400 and 404 are final, with their own codes', async () => {
  const s = await setup([
    { status: 400, json: { error: { message: "This model's maximum context length is 8192 tokens", code: 'context_length_exceeded' } } },
  ]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.error?.code, 'ORYX_E_LLM_BAD_REQUEST');
    assert.match(r.error!.hint!, 'context_tokens');
    assert.is(s.server.requests.length, 1);
  } finally { await s.cleanup(); }
  const n = await setup([{ status: 404, json: { error: { message: 'The model `nope` does not exist' } } }]);
  try {
    const r = await n.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.error?.code, 'ORYX_E_LLM_NOT_FOUND');
    assert.match(r.error!.message, 'does not exist');
    assert.is(n.server.requests.length, 1);
  } finally { await n.cleanup(); }
});

test('timeout: a server that never answers fails with ORYX_E_LLM_TIMEOUT after retrying', async () => {
  const s = await setup([{ hang: true }, { hang: true }], { timeoutMs: 150, maxRetries: 1 });
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.error?.code, 'ORYX_E_LLM_TIMEOUT');
    assert.match(r.error!.message, s.server.url);
    assert.match(r.error!.hint!, 'timeoutMs');
    assert.is(s.server.requests.length, 2);
    assert.equal(s.attempts.map((a) => [a.code, a.willRetry]), [['ORYX_E_LLM_TIMEOUT', true], ['ORYX_E_LLM_TIMEOUT', false]]);
  } finally { await s.cleanup(); }
});

test('a connection reset is retried and the next attempt succeeds', async () => {
  const s = await setup([{ destroy: true }, { json: completion({ content: 'back' }) }]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.answer, 'back');
    assert.is(s.server.requests.length, 2);
    assert.is(s.attempts.length, 1);
    assert.is(s.attempts[0]!.code, 'ORYX_E_LLM_CONNECTION');
    assert.is(s.attempts[0]!.willRetry, true);
  } finally { await s.cleanup(); }
});

test('abort mid-stream cancels the HTTP request: the server sees the connection close', async () => {
  const s = await setup([{ sse: [chunk({ role: 'assistant', content: 'Hel' }), chunk({ content: 'lo' })], hold: true }]);
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
    assert.is(s.server.requests.length, 1);
    assert.ok(s.attempts.every((a) => !a.willRetry));
  } finally { await s.cleanup(); }
});

test('a stream that goes silent for timeoutMs is cut with ORYX_E_LLM_TIMEOUT (not retried: tokens were shown)', async () => {
  const s = await setup([{ sse: [chunk({ role: 'assistant', content: 'Hel' })], hold: true }], { timeoutMs: 200 });
  try {
    const tokens: string[] = [];
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true, onEvent: (e) => { if (e.type === 'token') tokens.push(e.text); } });
    assert.is(r.error?.code, 'ORYX_E_LLM_TIMEOUT');
    assert.match(r.error!.message, 'went silent');
    assert.equal(tokens, ['Hel']);
    assert.is(s.server.requests.length, 1);
    assert.equal(s.attempts.map((a) => [a.code, a.willRetry]), [['ORYX_E_LLM_TIMEOUT', false]]);
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
    assert.is(s.server.requests.length, 1, 'an abort is not retried');
  } finally { await s.cleanup(); }
});

test('malformed tool arguments become an error tool result and the loop goes on', async () => {
  const s = await setup([
    { json: completion({ toolCalls: [{ id: 'bad1', name: 'echo', args: '{"text": "oops' }] }) },
    { json: completion({ toolCalls: [{ id: 'good1', name: 'echo', args: '{"text":"fixed"}' }] }) },
    { json: completion({ content: 'recovered' }) },
  ]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.stopReason, 'final');
    assert.is(r.answer, 'recovered');
    assert.equal(s.tools.calls, [{ text: 'fixed' }], 'the tool never ran with the broken arguments');
    const messages = s.server.requests[1]!.body.messages;
    const assistant = messages.find((m: any) => m.role === 'assistant');
    assert.equal(assistant.tool_calls[0], { id: 'bad1', type: 'function', function: { name: 'echo', arguments: '{}' } });
    const result = messages.find((m: any) => m.role === 'tool');
    assert.is(result.tool_call_id, 'bad1');
    assert.match(result.content, 'not valid JSON');
    assert.match(result.content, '{"text": "oops');
  } finally { await s.cleanup(); }
});

test('an unreachable endpoint names the URL and how to fix it', async () => {
  const gone = await openaiServer([]);
  const url = gone.url;
  await gone.close();
  const s = await setup([], { baseURL: url, maxRetries: 0 });
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.error?.code, 'ORYX_E_LLM_UNREACHABLE');
    assert.match(r.error!.message, `could not reach ${url}`);
    assert.match(r.error!.message, 'ECONNREFUSED');
    assert.match(r.error!.hint!, 'baseURL');
  } finally { await s.cleanup(); }
});

test('a stream that stops before a finish reason is an error, retried when no token was shown', async () => {
  const s = await setup([
    { sse: [chunk({ role: 'assistant' })], done: false },
    { sse: textStream(['ok']) },
  ]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true });
    assert.is(r.answer, 'ok');
    assert.equal(s.attempts.map((a) => [a.code, a.willRetry]), [['ORYX_E_LLM_CONNECTION', true]]);
  } finally { await s.cleanup(); }
});

test('an answer that is not a chat completion is ORYX_E_LLM_BAD_RESPONSE', async () => {
  const s = await setup([{ json: { hello: 'world' } }]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.error?.code, 'ORYX_E_LLM_BAD_RESPONSE');
    assert.match(r.error!.message, s.server.url);
    assert.match(r.error!.message, /^provider "openai" \(model m\): an answer with no choices from /);
    assert.is(r.error!.hint, LLM_HINTS.ORYX_E_LLM_BAD_RESPONSE);
    assert.equal(s.attempts.map((a) => [a.code, a.willRetry]), [['ORYX_E_LLM_BAD_RESPONSE', false]], 'final: not retried');
  } finally { await s.cleanup(); }
});

test('headers option is sent; a tool call without an id gets a stable generated one', async () => {
  const script = (): Reply[] => [
    { json: completion({ toolCalls: [{ name: 'echo', args: { text: 'a' } }] }) },
    { json: completion({ content: 'ok' }) },
  ];
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    const s = await setup(script(), { headers: { 'x-team': 'oryx' } });
    try {
      await s.t.service.process({ agent: 'assistant', message: 'same question' });
      assert.is(s.server.requests[0]!.headers['x-team'], 'oryx');
      const tool = s.server.requests[1]!.body.messages.find((m: any) => m.role === 'tool');
      const assistant = s.server.requests[1]!.body.messages.find((m: any) => m.role === 'assistant');
      assert.match(tool.tool_call_id, /^call_[0-9a-f]{24}$/);
      assert.is(assistant.tool_calls[0].id, tool.tool_call_id);
      ids.push(tool.tool_call_id);
    } finally { await s.cleanup(); }
  }
  assert.is(ids[0], ids[1], 'the same conversation gives the same id');
});

test.run();
