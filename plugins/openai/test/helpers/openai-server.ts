/**
 * The OpenAI chat-completions wire for tests: the provider kit's loopback server with SSE
 * framing under `/v1`, builders for what the server sends, and the dialect the shared wire
 * suite runs the openai plugin with.
 */
import type { Plugin } from '@oryxos/kernel';
import { wireServer, type ScriptEntry, type WireDialect, type WireServer } from '@oryxos/provider-kit/testing';
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

/** A chat.completion object. */
export function completion(input: { content?: string | null; toolCalls?: WireCall[]; usage?: [number, number]; finish?: string; model?: string }) {
  const calls = input.toolCalls?.map((c) => ({
    ...(c.id !== undefined ? { id: c.id } : {}), type: 'function',
    function: { name: c.name, arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args) },
  }));
  return {
    id: 'chatcmpl-test', object: 'chat.completion', created: 1, model: input.model ?? 'm',
    choices: [{
      index: 0,
      message: { role: 'assistant', content: input.content ?? null, ...(calls?.length ? { tool_calls: calls } : {}) },
      finish_reason: input.finish ?? (calls?.length ? 'tool_calls' : 'stop'),
    }],
    ...(input.usage ? { usage: { prompt_tokens: input.usage[0], completion_tokens: input.usage[1], total_tokens: input.usage[0] + input.usage[1] } } : {}),
  };
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
  stream: (pieces, usage) => textStream(pieces, usage),
  piece: (text) => chunk({ content: text }),
  error: (message) => ({ error: { message, type: 'test_error' } }),
  urlOption: 'baseURL',
};
