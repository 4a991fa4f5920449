// Tool loops on the Messages API, streamed and not, through the real @anthropic-ai/sdk.
// Shapes: Anthropic's API reference ("Messages", "Streaming Messages", "Extended thinking" —
// "Preserving thinking blocks" with tool use, redacted_thinking —, "Prompt caching", "Vision")
// and the Vercel AI SDK's recorded fixtures packages/anthropic/src/__fixtures__/
// issue-13430-thinking-tool-call.json (a signed thinking block before a tool_use) and
// anthropic-message-delta-input-tokens.chunks.txt (message_delta repeating input_tokens).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { wireKernel, type Reply, type ScriptEntry, type WireKit } from '@oryxos/provider-kit/testing';
import type { AnthropicOptions } from '../src/options.ts';
import { anthropicDialect, message, signatureOf, streamedMessage, type MessageInput } from './helpers/anthropic-server.ts';

const withKit = async (script: ScriptEntry[], options: AnthropicOptions, check: (s: WireKit) => Promise<void>) => {
  const s = await wireKernel(anthropicDialect, script, options as Record<string, unknown>);
  try { await check(s); } finally { await s.cleanup(); }
};
const reply = (stream: boolean, input: MessageInput): Reply => (stream ? { events: streamedMessage(input) } : { json: message(input) });

/**
 * Anthropic's check with thinking on: the final assistant message (the one whose tool_use the
 * request answers) starts with a thinking or redacted_thinking block. The error text as the
 * API sends it (quoted in public issues of agent frameworks).
 */
function thinkingRule(body: any): Reply | undefined {
  if (!body.thinking) return undefined;
  const last = body.messages.map((m: any, i: number) => [m, i]).filter(([m]: any) => m.role === 'assistant').at(-1);
  if (!last) return undefined;
  const [m, i] = last;
  const first = m.content[0]?.type;
  if (m.content.some((b: any) => b.type === 'tool_use') && first !== 'thinking' && first !== 'redacted_thinking') {
    return { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`.` } } };
  }
  return undefined;
}
const guarded = (input: (stream: boolean) => Reply): ((stream: boolean) => ScriptEntry) => (stream) => (body) => thinkingRule(body) ?? input(stream);

const THOUGHT = 'The user wants me to echo both words, in parallel.';

for (const stream of [false, true]) {
  const mode = stream ? 'streamed' : 'whole';
  test(`thinking on (${mode}): signed thinking goes back first, exactly as sent, then the parallel tool_use blocks; results in one user turn`, () => withKit([
    reply(stream, { reasoning: THOUGHT, content: 'Echoing both.', toolCalls: [{ id: 'toolu_017R7ACrx7NF7sLDDtvdQ1u9', name: 'echo', args: { text: 'a' } }, { id: 'toolu_02', name: 'echo', args: { text: 'b' } }], usage: [599, 59] }),
    guarded((st) => reply(st, { reasoning: 'Both came back.', content: 'a and b', usage: [700, 10] }))(stream),
  ], { thinking: { budgetTokens: 2048 } }, async (s) => {
    const r = await s.t.service.process({ agent: 'assistant', message: 'echo a and b', stream });
    assert.is(r.answer, 'a and b');
    assert.equal(s.echo.calls, [{ text: 'a' }, { text: 'b' }]);
    const [first, second] = s.server.requests.map((x) => x.body);
    assert.equal(first.thinking, { type: 'enabled', budget_tokens: 2048 });
    assert.ok(first.max_tokens > 2048, 'max_tokens leaves room for the thinking budget');
    assert.equal(second.messages.at(-2), { role: 'assistant', content: [
      { type: 'thinking', thinking: THOUGHT, signature: signatureOf(THOUGHT) },
      { type: 'text', text: 'Echoing both.' },
      { type: 'tool_use', id: 'toolu_017R7ACrx7NF7sLDDtvdQ1u9', name: 'echo', input: { text: 'a' } },
      { type: 'tool_use', id: 'toolu_02', name: 'echo', input: { text: 'b' } },
    ] });
    const results = second.messages.at(-1);
    assert.is(results.role, 'user');
    assert.equal(results.content.map((b: any) => [b.type, b.tool_use_id, b.content[0].text]), [['tool_result', 'toolu_017R7ACrx7NF7sLDDtvdQ1u9', 'echo: a'], ['tool_result', 'toolu_02', 'echo: b']]);
    assert.equal(s.responses[0]!.message.parts, [{ type: 'reasoning', text: THOUGHT, signature: signatureOf(THOUGHT), metadata: { anthropic: { block: 'thinking' } } }]);
  }));

  test(`redacted thinking (${mode}): the encrypted block goes back untouched, before the signed one`, () => withKit([
    reply(stream, { redacted: ['EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP'], reasoning: THOUGHT, toolCalls: [{ id: 'toolu_9', name: 'echo', args: { text: 'x' } }] }),
    guarded((st) => reply(st, { content: 'done' }))(stream),
  ], { thinking: { budgetTokens: 1024 } }, async (s) => {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream });
    assert.is(r.answer, 'done');
    const back = s.server.requests[1]!.body.messages.at(-2).content;
    assert.equal(back.slice(0, 2), [
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' },
      { type: 'thinking', thinking: THOUGHT, signature: signatureOf(THOUGHT) },
    ]);
  }));

  test(`usage (${mode}): inputTokens counts cached tokens too; read and written figures kept`, () => withKit([
    reply(stream, { content: 'hi', usage: [5000, 20], cache: { read: 4096, write: 800 } }),
  ], {}, async (s) => {
    await s.t.service.process({ agent: 'assistant', message: 'hi', stream });
    assert.equal(s.responses[0]!.usage, { inputTokens: 5000, outputTokens: 20, cacheReadTokens: 4096, cacheWriteTokens: 800 });
  }));

  test(`pause_turn (${mode}) is its own outcome (other), the word kept`, () => withKit([
    reply(stream, { content: 'Still searching', stopReason: 'pause_turn' }),
  ], {}, async (s) => {
    await s.t.service.process({ agent: 'assistant', message: 'search', stream });
    assert.equal([s.responses[0]!.finishReason, s.responses[0]!.rawFinishReason], ['other', 'pause_turn']);
  }));
}

test('without its thinking block the API refuses the tool loop, with its own message (the rule the loopback applies is real)', () => withKit([
  { json: message({ toolCalls: [{ id: 'toolu_1', name: 'echo', args: { text: 'x' } }] }) },
  (body) => thinkingRule(body) ?? { json: message({ content: 'never' }) },
], { thinking: { budgetTokens: 1024 } }, async (s) => {
  const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(r.error?.code, 'ORYX_E_LLM_BAD_REQUEST');
  assert.match(r.error!.message, 'a final `assistant` message must start with a thinking block');
}));

test('message_delta repeating input_tokens updates the usage', () => withKit([
  { events: [
    { type: 'message_start', message: { content: [], id: 'msg_3196', model: 'claude-opus-4-5-20251101', role: 'assistant', stop_reason: null, stop_sequence: null, type: 'message', usage: { input_tokens: 43, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { text: '', type: 'text' } },
    { type: 'content_block_delta', index: 0, delta: { text: 'p', type: 'text_delta' } },
    { type: 'ping' },
    { type: 'content_block_delta', index: 0, delta: { text: 'ong', type: 'text_delta' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { input_tokens: 61, output_tokens: 2 } },
    { type: 'message_stop' },
  ] },
], {}, async (s) => {
  const r = await s.t.service.process({ agent: 'assistant', message: 'ping', stream: true });
  assert.is(r.answer, 'pong');
  assert.equal(s.responses[0]!.usage, { inputTokens: 61, outputTokens: 2 });
  assert.is(s.responses[0]!.model, 'claude-opus-4-5-20251101');
}));

test('cache_control: the last tool, the system prompt, and the two latest user turns; never more than four', () => withKit([
  { json: message({ toolCalls: [{ id: 't1', name: 'echo', args: { text: '1' } }] }) },
  { json: message({ toolCalls: [{ id: 't2', name: 'echo', args: { text: '2' } }] }) },
  { json: message({ content: 'done' }) },
], {}, async (s) => {
  await s.t.service.process({ agent: 'assistant', message: 'go' });
  const marks = (body: any) => {
    const out: string[] = [];
    body.tools?.forEach((t: any, i: number) => { if (t.cache_control) out.push(`tools.${i}`); });
    body.system?.forEach((b: any, i: number) => { if (b.cache_control) out.push(`system.${i}`); });
    body.messages.forEach((m: any, i: number) => m.content.forEach((b: any, j: number) => { if (b.cache_control) out.push(`messages.${i}.${j}`); }));
    return out;
  };
  const bodies = s.server.requests.map((r) => r.body);
  assert.equal(marks(bodies[0]), ['tools.0', 'system.0', 'messages.0.0']);
  assert.equal(marks(bodies[2]), ['tools.0', 'system.0', 'messages.2.0', 'messages.4.0']);
  assert.ok(bodies.every((b) => marks(b).length <= 4));
  assert.equal(bodies[2].messages[2].content[0].cache_control, { type: 'ephemeral' });
}));

test('cache: false sends no breakpoint', () => withKit([{ json: message({ content: 'ok' }) }], { cache: false }, async (s) => {
  await s.t.service.process({ agent: 'assistant', message: 'go' });
  assert.not.ok(JSON.stringify(s.server.requests[0]!.body).includes('cache_control'));
}));

test('images: a user image and a tool result\'s image go as base64 image blocks; the provider says it takes images', () => withKit([
  { json: message({ content: 'a red dot' }) },
], { cache: false }, async (s) => {
  const provider = s.t.kernel.provider('anthropic');
  assert.equal(provider.supports?.('claude-sonnet-4-5'), { images: true });
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  await provider.chat({
    model: 'claude-sonnet-4-5', tools: [],
    messages: [
      { role: 'user', content: 'What is in these?', parts: [{ type: 'image', mediaType: 'image/png', data: png, name: 'dot.png' }] },
      { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_s', name: 'screenshot', args: {} }] },
      { role: 'tool', toolCallId: 'toolu_s', name: 'screenshot', content: 'the screen:', parts: [{ type: 'image', mediaType: 'image/png', data: png }] },
    ],
  });
  const [user, , results] = s.server.requests[0]!.body.messages;
  assert.equal(user.content[1], { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } });
  assert.equal(results.content[0].content[1], { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } });
}));

test('529 overloaded_error is retried after retry-after; the key and version headers are sent', () => withKit([
  { status: 529, headers: { 'retry-after': '1' }, json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
  { json: message({ content: 'back' }) },
], {}, async (s) => {
  const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(r.answer, 'back');
  assert.equal(s.attempts.map((a) => [a.code, a.willRetry, a.retryAfterMs, a.status]), [['ORYX_E_LLM_SERVER', true, 1000, 529]]);
  assert.match(s.attempts[0]!.message, 'Overloaded');
  const headers = s.server.requests[0]!.headers;
  // The SDK (1.x) sends the key as a bearer token; older ones as x-api-key.
  assert.is(headers['x-api-key'] ?? String(headers.authorization).replace(/^Bearer /, ''), 'sk-ant-test');
  assert.ok(headers['anthropic-version'], 'the SDK sends its API version');
  assert.is(s.server.requests[0]!.path, '/v1/messages');
}));

test.run();
