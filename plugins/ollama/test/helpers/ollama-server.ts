/**
 * Ollama's /api/chat wire for tests: the provider kit's loopback server with NDJSON framing,
 * builders for what the server sends, and the dialect the shared wire suite runs the ollama
 * plugin with.
 */
import type { Plugin } from '@oryxos/kernel';
import { wireServer, type ScriptEntry, type WireAnswer, type WireDialect, type WireServer } from '@oryxos/provider-kit/testing';
import ollama from '../../src/index.ts';

export type { Reply, RecordedRequest } from '@oryxos/provider-kit/testing';
import type { Reply, RecordedRequest } from '@oryxos/provider-kit/testing';
export interface OllamaServer extends WireServer { shows: RecordedRequest[] }

/** Ollama's answer to `/api/show` for a model it does not have. */
const noSuchModel = (body: any): Reply => ({ status: 404, json: { error: `model '${body?.model}' not found` } });

/**
 * A loopback server speaking Ollama's protocol; `url` is what `host` takes. `show` answers
 * `POST /api/show` (default: 404, as Ollama does for a model it does not have); those requests
 * are in `shows` and take no scripted reply.
 */
export async function ollamaServer(script: ScriptEntry[], options: { show?: (body: any) => Reply } = {}): Promise<OllamaServer> {
  const server = await wireServer(script, { framing: 'ndjson', side: { '/api/show': options.show ?? noSuchModel } });
  // Added to the server itself: copying it would freeze its closedEarly getters.
  (server as OllamaServer).shows = server.side['/api/show']!;
  return server as OllamaServer;
}

// ---------------------------------------------------------------------------------------
// Wire builders

export interface WireCall { name: string; args: unknown }

const base = { model: 'm', created_at: '2025-01-01T00:00:00Z' };

/** A whole /api/chat answer (stream: false). `thinking` is what thinking models (qwen3, gpt-oss, deepseek-r1) send with `think: true`. */
export function chatResponse(input: { content?: string; toolCalls?: WireCall[]; usage?: [number, number]; doneReason?: string; thinking?: string }) {
  return {
    ...base,
    message: {
      role: 'assistant', content: input.content ?? '', ...(input.thinking ? { thinking: input.thinking } : {}),
      ...(input.toolCalls?.length ? { tool_calls: input.toolCalls.map((c) => ({ function: { name: c.name, arguments: c.args } })) } : {}),
    },
    done: true, done_reason: input.doneReason ?? 'stop',
    total_duration: 1, load_duration: 1, prompt_eval_count: input.usage?.[0] ?? 0, prompt_eval_duration: 1,
    eval_count: input.usage?.[1] ?? 0, eval_duration: 1,
  };
}

/** One streamed part (not the last). */
export function part(content: string, toolCalls?: WireCall[]) {
  return {
    ...base, done: false,
    message: { role: 'assistant', content, ...(toolCalls ? { tool_calls: toolCalls.map((c) => ({ function: { name: c.name, arguments: c.args } })) } : {}) },
  };
}

/** The final streamed part with the counts. */
export function donePart(usage: [number, number], doneReason = 'stop') {
  return { ...chatResponse({ usage, doneReason }), message: { role: 'assistant', content: '' } };
}

/** The parts of the same answer streamed: thinking and text in two parts each, the calls whole (as Ollama sends them), then the counts. */
export function streamedChat(input: WireAnswer) {
  const halves = (text: string) => [text.slice(0, Math.ceil(text.length / 2)), text.slice(Math.ceil(text.length / 2))].filter(Boolean);
  const doneReason = input.finish === 'length' ? 'length' : 'stop';
  return [
    ...halves(input.reasoning ?? '').map((t) => ({ ...base, done: false, message: { role: 'assistant', content: '', thinking: t } })),
    ...halves(input.content ?? '').map((t) => part(t)),
    ...(input.toolCalls?.length ? [part('', input.toolCalls.map((c) => ({ name: c.name, args: c.args })))] : []),
    donePart(input.usage ?? [1, 1], doneReason),
  ];
}

/** How the Ollama wire speaks, for the provider kit's shared wire suite. */
export const ollamaDialect: WireDialect = {
  provider: 'ollama',
  framing: 'ndjson',
  plugin: (url, options): Plugin => ollama({ host: url, defaultModel: 'm', ...options }),
  // Before the first byte Ollama allows firstByteTimeoutMs (model loading), then timeoutMs between parts.
  idleTimeout: (ms) => ({ timeoutMs: ms, firstByteTimeoutMs: ms }),
  answer: (input) => chatResponse({
    content: input.content, toolCalls: input.toolCalls?.map((c) => ({ name: c.name, args: c.args })), usage: input.usage, thinking: input.reasoning,
    doneReason: input.finish === 'length' ? 'length' : undefined,
  }),
  streamed: (input) => streamedChat(input),
  stream: (pieces, usage) => [...pieces.map((p) => part(p)), donePart(usage)],
  piece: (text) => part(text),
  error: (message) => ({ error: message }),
  urlOption: 'OLLAMA_HOST',
  // Ollama ends a failing stream with an {"error": …} line.
  streamError: (message) => ({ error: message }),
  finishWords: { length: 'length' },
  reportsCache: false,
  echoedReasoning: (body, n) => body.messages.filter((x: any) => x.role === 'assistant')[n]?.thinking,
  maxTokensOf: (body) => body.options?.num_predict,
  side: { '/api/show': noSuchModel },
};
