// Multi-step tool loops in the shapes real OpenAI-compatible servers send, streamed and not,
// through the real `openai` client. Each case is built from a public source, named with it;
// each asserts that the next request carries exactly what that server needs back (the
// loopback server applies the server's documented check, see helpers/server-rules.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { wireKernel, type Reply, type ScriptEntry, type WireKit } from '@oryxos/provider-kit/testing';
import type { OpenAIOptions } from '../src/options.ts';
import { chunk, completion, openaiDialect } from './helpers/openai-server.ts';
import { deepseekR1Rule, deepseekThinkingRule, geminiSignatureRule, kimiThinkingRule } from './helpers/server-rules.ts';

const setup = (script: ScriptEntry[], options: OpenAIOptions = {}) => wireKernel(openaiDialect, script, options as Record<string, unknown>);
const withKit = async (script: ScriptEntry[], options: OpenAIOptions, check: (s: WireKit) => Promise<void>) => {
  const s = await setup(script, options);
  try { await check(s); } finally { await s.cleanup(); }
};
/** The reply unless `rule` refuses the request. */
const guarded = (rule: (body: any) => Reply | undefined, reply: Reply): ScriptEntry => (body) => rule(body) ?? reply;
const assistants = (body: any) => body.messages.filter((m: any) => m.role === 'assistant');
const usageChunk = (usage: Record<string, unknown>) => ({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage });

// ---------------------------------------------------------------------------------------
// DeepSeek V4 thinking mode. Shapes: the Vercel AI SDK's recorded fixtures
// packages/deepseek/src/chat/__fixtures__/deepseek-tool-call.json and .chunks.txt (reasoning_content
// beside content and tool_calls, usage with prompt_cache_hit_tokens and
// prompt_tokens_details.cached_tokens); rule: api-docs.deepseek.com/guides/thinking_mode.

const DS_REASONING = "The user asks about weather in San Francisco. I'll call the weather tool.";
const dsUsage = { prompt_tokens: 374, completion_tokens: 61, total_tokens: 435, prompt_tokens_details: { cached_tokens: 256 }, completion_tokens_details: { reasoning_tokens: 17 }, prompt_cache_hit_tokens: 256, prompt_cache_miss_tokens: 118 };

function deepseekCall(stream: boolean): Reply {
  if (!stream) {
    return { json: { ...completion({ content: '', reasoning: DS_REASONING, toolCalls: [{ id: 'call_00_lCIkdHRa7AKmCG3TlxXz1061', name: 'echo', args: { text: 'San Francisco' } }] }), model: 'deepseek-v4-flash', usage: dsUsage } };
  }
  return { events: [
    chunk({ role: 'assistant', content: null, reasoning_content: '' }),
    chunk({ content: null, reasoning_content: 'The user asks about weather in San Francisco.' }),
    chunk({ content: null, reasoning_content: " I'll call the weather tool." }),
    chunk({ tool_calls: [{ index: 0, id: 'call_00_IhCAliIHtM9gKpgfqbBV9873', type: 'function', function: { name: 'echo', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"text": ' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"San Francisco"}' } }] }),
    { ...chunk({ content: '', reasoning_content: null }, 'tool_calls'), usage: dsUsage },
  ] };
}
const deepseekAnswer = (stream: boolean, text: string, reasoning: string): Reply => (stream
  ? { events: [chunk({ role: 'assistant', reasoning_content: reasoning }), chunk({ content: text }), chunk({}, 'stop'), usageChunk({ prompt_tokens: 420, completion_tokens: 9 })] }
  : { json: completion({ content: text, reasoning, usage: [420, 9] }) });

for (const stream of [false, true]) {
  const mode = stream ? 'streamed' : 'whole';
  test(`DeepSeek V4 thinking (${mode}): reasoning_content goes back on the tool turn's assistant messages, in this request and every later turn; cache hits read`, () => withKit([
    guarded(deepseekThinkingRule, deepseekCall(stream)),
    guarded(deepseekThinkingRule, deepseekAnswer(stream, 'It is sunny.', 'The tool says sunny.')),
    guarded(deepseekThinkingRule, deepseekAnswer(stream, 'You are welcome.', 'A thank-you; no tool.')),
    guarded(deepseekThinkingRule, deepseekAnswer(stream, 'Bye.', 'Another.')),
  ], { name: 'deepseek' }, async (s) => {
    const session = await s.t.kernel.service('sessions').create({ agent: 'assistant' });
    const ask = (message: string) => s.t.service.process({ agent: 'assistant', session: session.id, message, stream });
    assert.is((await ask('Weather in San Francisco?')).answer, 'It is sunny.');
    assert.is((await ask('Thanks!')).answer, 'You are welcome.');
    assert.is((await ask('Bye')).answer, 'Bye.');
    const [, second, third, fourth] = s.server.requests.map((r) => r.body);
    assert.equal(assistants(second).map((m: any) => m.reasoning_content), [DS_REASONING]);
    // Turn 1 called tools: both its assistant messages keep their reasoning in every later turn.
    assert.equal(assistants(third).map((m: any) => m.reasoning_content), [DS_REASONING, 'The tool says sunny.']);
    // Turn 2 called none: its reasoning is not sent (DeepSeek ignores it there; R1 refused it).
    assert.equal(assistants(fourth).map((m: any) => m.reasoning_content), [DS_REASONING, 'The tool says sunny.', undefined]);
    assert.equal(s.responses[0]!.usage, { inputTokens: 374, outputTokens: 61, cacheReadTokens: 256, reasoningTokens: 17 });
    assert.is(s.attempts.length, 0, 'no request was refused');
  }));
}

test('DeepSeek thinking: without the echo the server refuses with its own message, final (the rule the loopback applies is real)', () => withKit([
  guarded(deepseekThinkingRule, deepseekCall(false)),
  guarded(deepseekThinkingRule, deepseekAnswer(false, 'x', 'y')),
], { name: 'deepseek', reasoningEcho: 'never' }, async (s) => {
  const r = await s.t.service.process({ agent: 'assistant', message: 'Weather?' });
  assert.is(r.error?.code, 'ORYX_E_LLM_BAD_REQUEST');
  assert.match(r.error!.message, 'Missing `reasoning_content` field in the assistant message at message index 2');
  assert.is(s.server.requests.length, 2, 'not retried');
}));

test('reasoningEcho "always": every assistant message gets reasoning_content, "" where it has none', () => withKit([
  { json: completion({ content: 'Hello.', usage: [5, 1] }) },
  { json: completion({ content: 'Again.', usage: [5, 1] }) },
], { name: 'deepseek', reasoningEcho: 'always' }, async (s) => {
  const session = await s.t.kernel.service('sessions').create({ agent: 'assistant' });
  await s.t.service.process({ agent: 'assistant', session: session.id, message: 'hi' });
  await s.t.service.process({ agent: 'assistant', session: session.id, message: 'again' });
  assert.equal(assistants(s.server.requests[1]!.body).map((m: any) => m.reasoning_content), ['']);
}));

// ---------------------------------------------------------------------------------------
// The original deepseek-reasoner (R1): reasoning_content in its answers, refused in input
// (api-docs.deepseek.com/guides/reasoning_model). It called no tools, so no turn sends it back.

for (const stream of [false, true]) {
  test(`deepseek-reasoner R1 (${stream ? 'streamed' : 'whole'}): a multi-turn chat never sends reasoning_content back`, () => withKit([
    guarded(deepseekR1Rule, deepseekAnswer(stream, '9.11 < 9.8.', 'Compare the decimals: 0.11 < 0.8.')),
    guarded(deepseekR1Rule, deepseekAnswer(stream, 'Three.', 'Count the r letters.')),
  ], { name: 'deepseek' }, async (s) => {
    const session = await s.t.kernel.service('sessions').create({ agent: 'assistant' });
    await s.t.service.process({ agent: 'assistant', session: session.id, message: '9.11 and 9.8, which is greater?', stream });
    const r = await s.t.service.process({ agent: 'assistant', session: session.id, message: "How many Rs are there in the word 'strawberry'?", stream });
    assert.is(r.answer, 'Three.');
    assert.equal(assistants(s.server.requests[1]!.body), [{ role: 'assistant', content: '9.11 < 9.8.' }]);
    assert.equal(s.responses[0]!.message.parts?.map((p) => p.text), ['Compare the decimals: 0.11 < 0.8.']);
  }));
}

// ---------------------------------------------------------------------------------------
// Kimi K2.5 / K2.6 (platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model): streamed
// reasoning_content, parallel calls, usage with Moonshot's top-level cached_tokens.

for (const stream of [false, true]) {
  test(`Kimi K2.5 (${stream ? 'streamed' : 'whole'}): two parallel calls, reasoning_content back on the tool-call message, cached_tokens read`, () => withKit([
    guarded(kimiThinkingRule, stream ? { events: [
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'I need both cities' }),
      chunk({ reasoning_content: ', in parallel.' }),
      chunk({ tool_calls: [{ index: 0, id: 'functions.echo:0', type: 'function', function: { name: 'echo', arguments: '{"text":"Paris"}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'functions.echo:1', type: 'function', function: { name: 'echo', arguments: '{"text":"Rome"}' } }] }),
      { ...chunk({}, 'tool_calls'), usage: { prompt_tokens: 900, completion_tokens: 40, total_tokens: 940, cached_tokens: 512 } },
    ] } : { json: { ...completion({ reasoning: 'I need both cities, in parallel.', toolCalls: [{ id: 'functions.echo:0', name: 'echo', args: { text: 'Paris' } }, { id: 'functions.echo:1', name: 'echo', args: { text: 'Rome' } }] }), usage: { prompt_tokens: 900, completion_tokens: 40, total_tokens: 940, cached_tokens: 512 } } }),
    guarded(kimiThinkingRule, { json: completion({ content: 'Paris and Rome.', usage: [950, 5] }) }),
  ], { name: 'kimi' }, async (s) => {
    const r = await s.t.service.process({ agent: 'assistant', message: 'Paris and Rome?', stream });
    assert.is(r.answer, 'Paris and Rome.');
    assert.equal(s.echo.calls, [{ text: 'Paris' }, { text: 'Rome' }]);
    const back = assistants(s.server.requests[1]!.body)[0];
    assert.is(back.reasoning_content, 'I need both cities, in parallel.');
    assert.equal(back.tool_calls.map((c: any) => c.id), ['functions.echo:0', 'functions.echo:1']);
    assert.is(s.responses[0]!.usage.cacheReadTokens, 512);
  }));
}

// ---------------------------------------------------------------------------------------
// Gemini 3 through Google's OpenAI-compatible endpoint: the tool call's
// extra_content.google.thought_signature (ai.google.dev/gemini-api/docs/thought-signatures,
// "OpenAI compatibility"); streamed tool calls come whole, without `index`; a 400 is a JSON array.

const SIG = 'CrICAdHtim827fQyYKnXbY4nUx9s1QdLr0/0w2kC7n3qQe0xq2fNw==';
for (const stream of [false, true]) {
  test(`Gemini 3 (${stream ? 'streamed' : 'whole'}): the thought signature comes back on its tool call, exactly as sent`, () => {
    const signatures = new Map([['function-call-123', SIG]]);
    const call = { id: 'function-call-123', type: 'function', function: { name: 'echo', arguments: '{"text":"Boston"}' }, extra_content: { google: { thought_signature: SIG } } };
    return withKit([
      stream
        ? { events: [chunk({ role: 'assistant', tool_calls: [call] }), chunk({}, 'tool_calls'), usageChunk({ prompt_tokens: 60, completion_tokens: 12 })] }
        : { json: { id: 'x', object: 'chat.completion', created: 1, model: 'gemini-3-pro-preview', choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', tool_calls: [call] } }], usage: { prompt_tokens: 60, completion_tokens: 12 } } },
      guarded(geminiSignatureRule(signatures), { json: completion({ content: 'It is cold in Boston.', usage: [80, 6] }) }),
    ], { name: 'gemini' }, async (s) => {
      const r = await s.t.service.process({ agent: 'assistant', message: 'Weather in Boston?', stream });
      assert.is(r.answer, 'It is cold in Boston.');
      assert.equal(assistants(s.server.requests[1]!.body)[0].tool_calls[0].extra_content, { google: { thought_signature: SIG } });
    });
  });
}

test('Gemini: a 400 whose body is a JSON array keeps the server\'s message (not "status code (no body)")', () => withKit([
  { json: { id: 'x', object: 'chat.completion', created: 1, model: 'g', choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', tool_calls: [{ id: 'fc1', type: 'function', function: { name: 'echo', arguments: '{"text":"a"}' }, extra_content: { google: { thought_signature: SIG } } }] } }] } },
  guarded(geminiSignatureRule(new Map([['fc1', 'another signature']])), { json: completion({ content: 'never' }) }),
], { name: 'gemini' }, async (s) => {
  const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(r.error?.code, 'ORYX_E_LLM_BAD_REQUEST');
  assert.match(r.error!.message, 'Function call is missing a thought_signature in functionCall parts');
  assert.is(s.attempts[0]!.status, 400);
}));

// ---------------------------------------------------------------------------------------
// Ollama's /v1 and SGLang: parallel calls that all say `index: 0` (issue 36, item 3; Ollama's
// OpenAI-compatibility doc for the chunk shape, with gpt-oss's `reasoning` field).

test('Ollama /v1 (streamed): two whole calls at index 0 with their own ids are two calls; `reasoning` goes back as `reasoning`', () => withKit([
  { events: [
    chunk({ role: 'assistant', content: '', reasoning: 'Two lookups.' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_a1b2', type: 'function', function: { name: 'echo', arguments: '{"a":1,"text":"one"}' } }] }),
    chunk({ tool_calls: [{ index: 0, id: 'call_c3d4', type: 'function', function: { name: 'echo', arguments: '{"b":2,"text":"two"}' } }] }),
    chunk({}, 'tool_calls'), usageChunk({ prompt_tokens: 30, completion_tokens: 20 }),
  ] },
  { json: completion({ content: 'done', usage: [40, 2] }) },
], { name: 'ollama-v1' }, async (s) => {
  const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true });
  assert.is(r.answer, 'done');
  // The echo tool's schema refuses the extra keys, so the calls are told so: what matters is two calls, not one `{"a":1,…}{"b":2,…}`.
  const back = assistants(s.server.requests[1]!.body)[0];
  assert.equal(back.tool_calls.map((c: any) => [c.id, c.function.arguments]), [['call_a1b2', '{"a":1,"text":"one"}'], ['call_c3d4', '{"b":2,"text":"two"}']]);
  assert.is(back.reasoning, 'Two lookups.');
  assert.is(back.reasoning_content, undefined, 'no reasoning_content to a server that never sent one');
}));

test('SGLang (streamed): calls fragmented at index 0, a new id starting each; then an {"object":"error"} mid-stream is a final BAD_REQUEST with its message', () => withKit([
  { events: [
    chunk({ role: 'assistant', content: null }),
    chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'echo', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"text": "x"' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '}' } }] }),
    chunk({ tool_calls: [{ index: 0, id: 'call_2', type: 'function', function: { name: 'echo', arguments: '{"text": ' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"y"}' } }] }),
    chunk({}, 'tool_calls'),
  ] },
  { events: [{ object: 'error', message: 'The prompt is too long: 40961 tokens > 40960', type: 'BadRequestError', param: null, code: 400 }] },
], { name: 'sglang' }, async (s) => {
  const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true });
  assert.equal(s.echo.calls, [{ text: 'x' }, { text: 'y' }]);
  assert.is(r.error?.code, 'ORYX_E_LLM_BAD_REQUEST');
  assert.match(r.error!.message, 'The prompt is too long: 40961 tokens > 40960');
  assert.equal(s.attempts.map((a) => a.willRetry), [false]);
}));

// ---------------------------------------------------------------------------------------
// vLLM: `reasoning_content` before 0.10, `reasoning` since (docs.vllm.ai "Reasoning Outputs"),
// prefix-cache hits in prompt_tokens_details.cached_tokens.

test('vLLM (whole): a server sending both reasoning fields with the same text is read once', () => withKit([
  { json: { ...completion({ content: 'four' }), choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'four', reasoning: '2+2=4', reasoning_content: '2+2=4' } }], usage: { prompt_tokens: 50, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 32 } } } },
], { name: 'vllm' }, async (s) => {
  await s.t.service.process({ agent: 'assistant', message: '2+2?' });
  assert.equal(s.responses[0]!.message.parts?.map((p) => p.text), ['2+2=4']);
  assert.is(s.responses[0]!.usage.cacheReadTokens, 32);
}));

// ---------------------------------------------------------------------------------------
// Mistral Magistral: content as an array of typed parts, `thinking` holding text chunks. Shapes:
// the Vercel AI SDK's fixtures packages/mistral/src/__fixtures__/mistral-reasoning.json and
// mistral-reasoning.chunks.txt (magistral-medium-2507).

for (const stream of [false, true]) {
  test(`Mistral Magistral (${stream ? 'streamed' : 'whole'}): thinking parts become reasoning, text parts the answer; the tool loop goes on with plain text`, () => withKit([
    stream ? { events: [
      chunk({ role: 'assistant', content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'The user is asking' }] }] }),
      chunk({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: ' for an echo.' }] }] }),
      chunk({ content: [{ type: 'text', text: 'Echoing.' }] }),
      chunk({ tool_calls: [{ id: 'Abc123xyZ', type: 'function', index: 0, function: { name: 'echo', arguments: '{"text": "4"}' } }] }),
      { ...chunk({ content: '' }, 'tool_calls'), usage: { prompt_tokens: 10, total_tokens: 56, completion_tokens: 46 } },
    ] } : { json: { id: 'a4e2', object: 'chat.completion', created: 1, model: 'magistral-medium-2507', usage: { prompt_tokens: 10, total_tokens: 56, completion_tokens: 46 }, choices: [{ index: 0, finish_reason: 'tool_calls', message: {
      role: 'assistant', content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'The user is asking for an echo.' }] }, { type: 'text', text: 'Echoing.' }],
      tool_calls: [{ id: 'Abc123xyZ', type: 'function', function: { name: 'echo', arguments: '{"text": "4"}' } }],
    } }] } },
    { json: { id: 'b', object: 'chat.completion', created: 1, model: 'magistral-medium-2507', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: [{ type: 'text', text: '2 + 2 = 4' }] } }] } },
  ], { name: 'mistral' }, async (s) => {
    const r = await s.t.service.process({ agent: 'assistant', message: '2+2?', stream });
    assert.is(r.answer, '2 + 2 = 4', 'the answer is text, never the raw array');
    assert.equal(s.responses[0]!.message.parts?.map((p) => p.text), ['The user is asking for an echo.']);
    assert.equal(assistants(s.server.requests[1]!.body)[0].content, 'Echoing.');
    const stored = (await s.t.kernel.service('sessions').messages(r.sessionId)).map((m) => m.message.content);
    assert.ok(stored.every((c) => typeof c === 'string'), 'the store keeps text');
  }));
}

// ---------------------------------------------------------------------------------------
// Arguments as a JSON object instead of a string (some llama.cpp server builds, a LiteLLM
// streaming path: issue 36, item 5).

for (const stream of [false, true]) {
  test(`llama.cpp / LiteLLM (${stream ? 'streamed' : 'whole'}): arguments sent as an object run with that object`, () => withKit([
    stream
      ? { events: [chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'echo', arguments: { text: 'as object' } } }] }), chunk({}, 'tool_calls')] }
      : { json: { id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'echo', arguments: { text: 'as object' } } }] } }] } },
    { json: completion({ content: 'ok' }) },
  ], {}, async (s) => {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream });
    assert.is(r.answer, 'ok');
    assert.equal(s.echo.calls, [{ text: 'as object' }]);
    assert.is(assistants(s.server.requests[1]!.body)[0].tool_calls[0].function.arguments, '{"text":"as object"}');
  }));
}

// ---------------------------------------------------------------------------------------
// OpenRouter: `reasoning` plus `reasoning_details`, to pass back unmodified for tool calling
// (openrouter.ai/docs "Reasoning Tokens", "Preserving reasoning blocks"); streamed, the details
// come in fragments keyed by `index`.

test('OpenRouter (streamed): reasoning_details fragments are joined and go back unmodified on the assistant message', () => withKit([
  { events: [
    chunk({ role: 'assistant', content: '', reasoning: 'Look it up', reasoning_details: [{ type: 'reasoning.text', text: 'Look it up', format: 'anthropic-claude-v1', index: 0 }] }),
    chunk({ reasoning: '.', reasoning_details: [{ type: 'reasoning.text', text: '.', signature: 'ErUBCkYIBRgCIkA', format: 'anthropic-claude-v1', index: 0 }] }),
    chunk({ tool_calls: [{ index: 0, id: 'toolu_01', type: 'function', function: { name: 'echo', arguments: '{"text":"q"}' } }] }),
    chunk({}, 'tool_calls'), usageChunk({ prompt_tokens: 100, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 64, cache_write_tokens: 20 } }),
  ] },
  { json: completion({ content: 'found' }) },
], { name: 'openrouter' }, async (s) => {
  const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true });
  assert.is(r.answer, 'found');
  const back = assistants(s.server.requests[1]!.body)[0];
  assert.equal(back.reasoning_details, [{ type: 'reasoning.text', text: 'Look it up.', signature: 'ErUBCkYIBRgCIkA', format: 'anthropic-claude-v1', index: 0 }]);
  assert.is(back.reasoning, 'Look it up.');
  assert.equal([s.responses[0]!.usage.cacheReadTokens, s.responses[0]!.usage.cacheWriteTokens], [64, 20]);
}));

test.run();
