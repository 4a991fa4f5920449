// The decoding every OpenAI-compatible provider shares, shape by shape (the wire suites run the
// same shapes through the real SDKs; these pin the edge cases).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChatRequest } from '@oryxos/provider-spec';
import {
  ChatChunkAssembler, ServerReportedError, chatUsage, checkedFetch, fromChatCompletion, normalizeFinishReason, parseToolArguments, providerServerError, serverErrorOf,
  serverErrorOfText, type ProviderFix,
} from '../src/index.ts';

const request: ChatRequest = { model: 'm', tools: [], messages: [{ role: 'user', content: 'go' }] };
const ctx = { provider: 'acme', model: 'm', url: 'http://127.0.0.1:9/v1' };
const fix: ProviderFix = { unreachable: 'fix acme({ baseURL })', timeout: 'timeoutMs', timeoutMs: 1000 };
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ choices: [{ index: 0, delta, finish_reason: finish }] });

test('arguments: an object, JSON text, double-encoded text, nothing; the rest is an argsError quoting the raw text', () => {
  assert.equal(parseToolArguments({ a: 1 }), { args: { a: 1 } });
  assert.equal(parseToolArguments('{"a":1}'), { args: { a: 1 } });
  assert.equal(parseToolArguments('"{\\"a\\":1}"'), { args: { a: 1 } });
  assert.equal(parseToolArguments(''), { args: {} });
  assert.equal(parseToolArguments(null), { args: {} });
  assert.match(parseToolArguments('[1]').argsError!, 'expected a JSON object, got an array; raw: [1]');
  assert.match(parseToolArguments('{"a":').argsError!, 'raw: {"a":');
  assert.match(parseToolArguments(42).argsError!, 'got number');
});

test('error bodies: OpenAI object, plain string, Gemini array, vLLM object-error, Anthropic, FastAPI detail; HTML by its title', () => {
  assert.equal(serverErrorOf({ error: { message: 'bad key', type: 'invalid_request_error', code: 'invalid_api_key' } }), { message: 'bad key', code: 'invalid_api_key' });
  assert.equal(serverErrorOf({ error: 'model "x" not found' }), { message: 'model "x" not found' });
  assert.equal(serverErrorOf([{ error: { code: 400, message: 'Function call is missing a thought_signature', status: 'INVALID_ARGUMENT' } }]), { message: 'Function call is missing a thought_signature', code: 'INVALID_ARGUMENT', status: 400 });
  assert.equal(serverErrorOf({ object: 'error', message: 'too long', type: 'BadRequestError', param: null, code: 400 }), { message: 'too long', code: 'BadRequestError', status: 400 });
  assert.equal(serverErrorOf({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }), { message: 'Overloaded', code: 'overloaded_error' });
  assert.equal(serverErrorOf({ detail: 'Not Found' }), { message: 'Not Found' });
  assert.is(serverErrorOf({ choices: [] }), undefined);
  assert.equal(serverErrorOfText('<html><head><title>502 Bad Gateway</title></head></html>', 'text/html'), { message: 'an HTML page ("502 Bad Gateway")', html: true });
  assert.equal(serverErrorOfText('upstream timed out', 'text/plain'), { message: 'upstream timed out' });
});

test('a reported error as the kernel\'s code: by the status it came with or names; HTML with 200 is a final BAD_RESPONSE; in a stream without a status, a retryable SERVER', () => {
  const as = (e: ServerReportedError) => providerServerError(e, { ctx, fix, keyHint: 'key', modelHint: 'model', urlHint: 'check acme({ baseURL })' });
  const gemini = as(new ServerReportedError({ message: 'missing thought_signature', code: 'INVALID_ARGUMENT' }, 'response', 400));
  assert.equal([gemini.code, gemini.retryable], ['ORYX_E_LLM_BAD_REQUEST', false]);
  assert.match(gemini.message, 'missing thought_signature');
  const vllm = as(new ServerReportedError({ message: 'too long', status: 400 }, 'stream'));
  assert.equal([vllm.code, vllm.retryable], ['ORYX_E_LLM_BAD_REQUEST', false]);
  assert.match(vllm.message, 'reported in the stream');
  const html = as(new ServerReportedError({ message: 'an HTML page ("It works")', html: true }, 'response', 200));
  assert.equal([html.code, html.retryable], ['ORYX_E_LLM_BAD_RESPONSE', false]);
  assert.match(html.hint!, 'check acme({ baseURL })');
  const midStream = as(new ServerReportedError({ message: 'engine died' }, 'stream'));
  assert.equal([midStream.code, midStream.retryable], ['ORYX_E_LLM_SERVER', true]);
  const proxy = as(new ServerReportedError({ message: 'an HTML page ("502 Bad Gateway")', html: true }, 'response', 502));
  assert.equal([proxy.code, proxy.retryable, proxy.data?.status], ['ORYX_E_LLM_SERVER', true, 502]);
});

test('checkedFetch: a stream passes untouched; an error body, an HTML page with 200 and a JSON error to a streamed request throw; a whole JSON answer to a stream can become one SSE event', async () => {
  const respond = (body: string, status: number, type: string) => (async () => new Response(body, { status, headers: { 'content-type': type } })) as unknown as typeof fetch;
  const streamed = { method: 'POST', body: '{"stream":true}' };
  const sse = await checkedFetch(respond('data: {}\n\n', 200, 'text/event-stream'))('http://x', streamed);
  assert.is(await sse.text(), 'data: {}\n\n');
  const ndjson = await checkedFetch(respond('{"done":false}\n', 200, 'application/x-ndjson'))('http://x', streamed);
  assert.is(await ndjson.text(), '{"done":false}\n', 'NDJSON is a stream, not one JSON body');
  const thrown = async (f: typeof fetch, init?: RequestInit) => { try { await f('http://x', init); } catch (e) { return e as ServerReportedError; } throw new Error('expected a throw'); };
  let e = await thrown(checkedFetch(respond('[{"error":{"code":400,"message":"no"}}]', 400, 'application/json')));
  assert.equal([e.httpStatus, e.server.message], [400, 'no']);
  e = await thrown(checkedFetch(respond('<!doctype html><title>Home</title>', 200, 'text/html')));
  assert.equal([e.httpStatus, e.server.html], [200, true]);
  e = await thrown(checkedFetch(respond('{"object":"error","message":"busy","code":503}', 200, 'application/json')), streamed);
  assert.equal(e.server.status, 503);
  const one = await checkedFetch(respond('{"choices":[]}', 200, 'application/json'), { jsonAsSse: true })('http://x', streamed);
  assert.equal([one.headers.get('content-type'), await one.text()], ['text/event-stream', 'data: {"choices":[]}\n\ndata: [DONE]\n\n']);
});

test('a whole completion: Magistral parts, reasoning once when two fields say the same, calls with extra_content, usage with cache figures, the finish word kept', () => {
  const r = fromChatCompletion(request, {
    model: 'srv', usage: { prompt_tokens: 10, completion_tokens: 5, prompt_cache_hit_tokens: 4, completion_tokens_details: { reasoning_tokens: 2 } },
    choices: [{ finish_reason: 'length', message: {
      content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'hm' }] }, { type: 'text', text: 'Hi' }], reasoning: 'also', reasoning_content: 'also',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: { x: 1 } }, extra_content: { google: { thought_signature: 's' } } }],
    } }],
  }, 'acme')!;
  assert.is(r.message.content, 'Hi');
  assert.equal(r.message.parts?.map((p) => [p.text, p.metadata]), [['also', { acme: { field: 'reasoning_content' } }], ['hm', { acme: { field: 'content' } }]]);
  assert.equal(r.message.toolCalls, [{ id: 'c1', name: 'f', args: { x: 1 }, metadata: { acme: { extraContent: { google: { thought_signature: 's' } } } } }]);
  assert.equal(r.usage, { inputTokens: 10, outputTokens: 5, cacheReadTokens: 4, reasoningTokens: 2 });
  // Cut at the limit while calling tools: length, not tool_calls (the arguments may be cut too).
  assert.equal([r.finishReason, r.rawFinishReason, r.model], ['length', 'length', 'srv']);
  assert.equal(normalizeFinishReason('length', false), { finishReason: 'length', rawFinishReason: 'length' });
  assert.throws(() => fromChatCompletion(request, { object: 'error', message: 'nope', code: 400 }, 'acme'), (e: unknown) => e instanceof ServerReportedError);
});

test('a stream: calls by id at a shared index, by index when interleaved, whole calls without ids split by their complete arguments; an error chunk throws', () => {
  const a = new ChatChunkAssembler();
  for (const c of [
    chunk({ tool_calls: [{ index: 0, id: 'A', function: { name: 'f', arguments: '{"a"' } }] }),
    chunk({ tool_calls: [{ index: 1, id: 'B', function: { name: 'g', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }),
    chunk({ tool_calls: [{ index: 1, function: { arguments: '{"b":2}' } }] }),
    chunk({ tool_calls: [{ index: 0, id: 'C', function: { name: 'h', arguments: '{"c":3}' } }] }),
    chunk({}, 'tool_calls'),
  ]) a.push(c);
  assert.equal(a.response(request, 'p').message.toolCalls!.map((c) => [c.id, c.name, c.args]), [['A', 'f', { a: 1 }], ['B', 'g', { b: 2 }], ['C', 'h', { c: 3 }]]);
  const b = new ChatChunkAssembler();
  b.push(chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: '{"a":1}' } }] }));
  b.push(chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: '{"a":2}' } }] }, 'tool_calls'));
  assert.equal(b.response(request, 'p').message.toolCalls!.map((c) => c.args), [{ a: 1 }, { a: 2 }]);
  const c = new ChatChunkAssembler();
  assert.equal(c.push(chunk({ reasoning_content: 'r', content: [{ type: 'text', text: 't' }] })), [{ type: 'reasoning', delta: 'r' }, { type: 'text', delta: 't' }]);
  assert.throws(() => c.push({ object: 'error', message: 'x', code: 500 }), (e: unknown) => e instanceof ServerReportedError && e.where === 'stream');
});

test('usage: none reported stays undefined, 0 reported is 0', () => {
  assert.equal(chatUsage({ prompt_tokens: 3, completion_tokens: 1 }), { inputTokens: 3, outputTokens: 1 });
  assert.equal(chatUsage({ prompt_tokens: 3, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 0 } }), { inputTokens: 3, outputTokens: 1, cacheReadTokens: 0 });
  assert.equal(chatUsage({ prompt_tokens: 3, completion_tokens: 1, cached_tokens: 2 }), { inputTokens: 3, outputTokens: 1, cacheReadTokens: 2 });
  assert.equal(chatUsage(undefined), { inputTokens: 0, outputTokens: 0 });
});

test.run();
