import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunEvent } from '@oryxos/kernel';
import { providerWireSuite, wireKernel, type ScriptEntry } from '@oryxos/provider-kit/testing';
import type { OpenAIOptions } from '../src/options.ts';
import { completion, chunk, openaiDialect, usageChunk, textStream, type Reply } from './helpers/openai-server.ts';

/** A kernel with the openai plugin pointed at a loopback server, an echo tool, and a log of failed attempts. */
const setup = (script: ScriptEntry[], options: OpenAIOptions = {}) => wireKernel(openaiDialect, script, options as Record<string, unknown>);

// The tests every provider passes (errors, retries, aborts, time limits) come from the provider kit.
providerWireSuite(test, openaiDialect);

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
    assert.equal(s.echo.calls, [{ text: 'one' }, { text: 'two' }]);
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
    assert.equal(s.echo.calls, [{ text: 'x' }, { text: 'y' }]);
    const tools = s.server.requests[1]!.body.messages.filter((m: any) => m.role === 'tool');
    assert.equal(tools.map((m: any) => m.tool_call_id), ['c1', 'c2', 'c3']);
    assert.equal(tools.map((m: any) => m.content).slice(0, 2), ['echo: x', 'echo: y']);
    // An empty argument string means {} and fails schema validation (text is required), not JSON parsing.
    assert.match(tools[2].content, /Invalid arguments for echo/);
  } finally { await s.cleanup(); }
});

test('streaming: text deltas as tokens, tool-call argument fragments reassembled, usage captured', async () => {
  const s = await setup([
    { events: [
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
    { events: textStream(['All ', 'done', '.'], [50, 5]) },
  ]);
  try {
    const events: RunEvent[] = [];
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true, onEvent: (e) => events.push(e) });
    assert.is(r.answer, 'All done.');
    assert.equal(r.usage, { inputTokens: 90, outputTokens: 17 });
    assert.equal(s.echo.calls, [{ text: 'alpha' }, { text: 'beta' }]);
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

test('a stream that stops before a finish reason is an error, retried when no token was shown', async () => {
  const s = await setup([
    { events: [chunk({ role: 'assistant' })], done: false },
    { events: textStream(['ok']) },
  ]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true });
    assert.is(r.answer, 'ok');
    assert.equal(s.attempts.map((a) => [a.code, a.willRetry]), [['ORYX_E_LLM_CONNECTION', true]]);
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
