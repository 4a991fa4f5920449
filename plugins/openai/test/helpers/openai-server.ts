/**
 * The OpenAI chat-completions wire for tests: the provider kit's loopback server with SSE
 * framing under `/v1`, builders for what the server sends, and the dialect the shared wire
 * suite runs the openai plugin with.
 */
import type { Plugin } from '@oryxos/kernel';
import { wireServer, type ScriptEntry, type WireAnswer, type WireDialect, type WireServer } from '@oryxos/provider-kit/testing';
import openai from '../../src/index.ts';

export type { Reply, RecordedRequest } from '@oryxos/provider-kit/testing';
export type OpenAIServer = WireServer;

/** A loopback server speaking the chat-completions protocol; `url` ends in `/v1` (what `baseURL` takes). */
export function openaiServer(script: ScriptEntry[]): Promise<OpenAIServer> {
  return wireServer(script, { framing: 'sse', basePath: '/v1' });
}

// ---------------------------------------------------------------------------------------
// Wire builders

export interface WireCall { id?: string; name: string; args: string | Record<string, unknown> }

const usageOf = (usage: [number, number], cache?: WireAnswer['cache']) => ({
  prompt_tokens: usage[0], completion_tokens: usage[1], total_tokens: usage[0] + usage[1],
  ...(cache ? { prompt_tokens_details: { cached_tokens: cache.read } } : {}),
});

/** A chat.completion object. `reasoning` goes in `reasoning_content` (DeepSeek's field). */
export function completion(input: { content?: string | null; toolCalls?: WireCall[]; usage?: [number, number]; finish?: string; model?: string; reasoning?: string; cache?: WireAnswer['cache'] }) {
  const calls = input.toolCalls?.map((c) => ({
    ...(c.id !== undefined ? { id: c.id } : {}), type: 'function',
    function: { name: c.name, arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args) },
  }));
  return {
    id: 'chatcmpl-test', object: 'chat.completion', created: 1, model: input.model ?? 'm',
    choices: [{
      index: 0,
      message: { role: 'assistant', content: input.content ?? null, ...(input.reasoning ? { reasoning_content: input.reasoning } : {}), ...(calls?.length ? { tool_calls: calls } : {}) },
      finish_reason: input.finish ?? (calls?.length ? 'tool_calls' : 'stop'),
    }],
    ...(input.usage ? { usage: usageOf(input.usage, input.cache) } : {}),
  };
}

/** The chunks of the same answer streamed: reasoning and text in two pieces each, each call's arguments in two fragments. */
export function streamedCompletion(input: WireAnswer) {
  const halves = (text: string) => [text.slice(0, Math.ceil(text.length / 2)), text.slice(Math.ceil(text.length / 2))].filter(Boolean);
  const calls = (input.toolCalls ?? []).flatMap((c, index) => {
    const args = typeof c.args === 'string' ? c.args : JSON.stringify(c.args);
    const [a, b] = halves(args);
    return [
      chunk({ tool_calls: [{ index, ...(c.id !== undefined ? { id: c.id } : {}), type: 'function', function: { name: c.name, arguments: a ?? '' } }] }),
      ...(b ? [chunk({ tool_calls: [{ index, function: { arguments: b } }] })] : []),
    ];
  });
  const finish = input.finish ?? (input.toolCalls?.length ? 'tool_calls' : 'stop');
  return [
    chunk({ role: 'assistant', content: '' }),
    ...halves(input.reasoning ?? '').map((r) => chunk({ reasoning_content: r })),
    ...halves(input.content ?? '').map((t) => chunk({ content: t })),
    ...calls,
    chunk({}, finish),
    { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: usageOf(input.usage ?? [1, 1], input.cache) },
  ];
}

/** One chat.completion.chunk with the given delta. */
export function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] };
}

/** The final usage-only chunk sent with `stream_options.include_usage`. */
export function usageChunk(input: number, output: number) {
  return { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } };
}

/** A streamed text answer split into pieces. */
export function textStream(pieces: string[], usage: [number, number] = [7, 3]) {
  return [chunk({ role: 'assistant', content: '' }), ...pieces.map((p) => chunk({ content: p })), chunk({}, 'stop'), usageChunk(...usage)];
}

/** How the OpenAI wire speaks, for the provider kit's shared wire suite. */
export const openaiDialect: WireDialect = {
  provider: 'openai',
  framing: 'sse',
  basePath: '/v1',
  plugin: (url, options): Plugin => openai({ baseURL: url, apiKey: 'sk-test', defaultModel: 'm', ...options }),
  idleTimeout: (ms) => ({ timeoutMs: ms }),
  answer: (input) => completion(input),
  streamed: (input) => streamedCompletion(input),
  stream: (pieces, usage) => textStream(pieces, usage),
  piece: (text) => chunk({ content: text }),
  error: (message) => ({ error: { message, type: 'test_error' } }),
  urlOption: 'baseURL',
  // vLLM's and SGLang's shape of an error inside a stream.
  streamError: (message) => ({ object: 'error', message, type: 'InternalServerError', param: null, code: 500 }),
  finishWords: { length: 'length', content_filter: 'content_filter' },
  reportsCache: true,
  echoedReasoning: (body, n) => {
    const m = body.messages.filter((x: any) => x.role === 'assistant')[n];
    return m?.reasoning_content ?? m?.reasoning;
  },
  maxTokensOf: (body) => body.max_tokens ?? body.max_completion_tokens,
};
