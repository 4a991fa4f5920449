/**
 * Anthropic's Messages wire for tests: the provider kit's loopback server with Anthropic's SSE
 * framing (`event: <type>` + `data:`, no `[DONE]`), builders for what the API sends, and the
 * dialect the shared wire suite runs the anthropic plugin with.
 *
 * Shapes from Anthropic's public API reference ("Messages", "Streaming Messages": the event
 * sequence message_start → content_block_start/delta/stop → message_delta → message_stop, with
 * ping and error events; "Extended thinking": thinking_delta, signature_delta,
 * redacted_thinking; "Prompt caching": cache_read_input_tokens / cache_creation_input_tokens),
 * and the recorded responses in the Vercel AI SDK's anthropic provider fixtures
 * (packages/anthropic/src/__fixtures__).
 */
import { createHash } from 'node:crypto';
import type { Plugin } from '@oryxos/kernel';
import { wireServer, type ScriptEntry, type WireAnswer, type WireCall, type WireDialect, type WireServer } from '@oryxos/provider-kit/testing';
import anthropic from '../../src/index.ts';

export type { Reply, RecordedRequest } from '@oryxos/provider-kit/testing';

/** A loopback server speaking the Messages protocol; `url` is the origin (what `baseURL` takes: the SDK adds /v1/messages). */
export function anthropicServer(script: ScriptEntry[]): Promise<WireServer> {
  return wireServer(script, { framing: 'sse-events' });
}

/** A signature as the API makes them: opaque base64, different for each thought. */
export const signatureOf = (thinking: string) => `EqQB${createHash('sha256').update(thinking).digest('base64')}`;

export interface MessageInput extends WireAnswer {
  /** `redacted_thinking` blocks (their encrypted `data`), before the thinking. */
  redacted?: string[];
  /** A stop reason word as the API writes it, overriding the one `finish` and the calls imply. */
  stopReason?: string;
}

const stopOf = (input: MessageInput) => input.stopReason
  ?? (input.finish === 'length' ? 'max_tokens' : input.finish === 'content_filter' ? 'refusal' : input.toolCalls?.length ? 'tool_use' : 'end_turn');

function usageOf(input: MessageInput) {
  const [total, output] = input.usage ?? [1, 1];
  const read = input.cache?.read ?? 0;
  const write = input.cache?.write ?? 0;
  // The API's input_tokens counts only what came after the last cache breakpoint.
  return { input_tokens: total - read - write, output_tokens: output, ...(input.cache ? { cache_read_input_tokens: read, cache_creation_input_tokens: write } : {}) };
}

// A whole answer's input is an object; arguments no JSON parser takes go as the raw text (a broken proxy).
const parsedOr = (text: string): unknown => { try { return JSON.parse(text || '{}'); } catch { return text; } };
const inputOf = (c: WireCall) => (typeof c.args === 'string' ? c.args : JSON.stringify(c.args));

/** The content blocks of an answer: redacted thinking, thinking (signed), text, tool_use. */
function blocksOf(input: MessageInput): Record<string, unknown>[] {
  return [
    ...(input.redacted ?? []).map((data) => ({ type: 'redacted_thinking', data })),
    ...(input.reasoning ? [{ type: 'thinking', thinking: input.reasoning, signature: signatureOf(input.reasoning) }] : []),
    ...(input.content ? [{ type: 'text', text: input.content }] : []),
    ...(input.toolCalls ?? []).map((c, i) => ({ type: 'tool_use', id: c.id ?? `toolu_${i}`, name: c.name, input: typeof c.args === 'string' ? parsedOr(c.args) : c.args })),
  ];
}

/** A whole Messages API answer. */
export function message(input: MessageInput) {
  return { id: 'msg_test', type: 'message', role: 'assistant', model: 'm', content: blocksOf(input), stop_reason: stopOf(input), stop_sequence: null, usage: usageOf(input) };
}

/** The events of the same answer streamed, in the documented order, text and thinking in two deltas each. */
export function streamedMessage(input: MessageInput): Record<string, unknown>[] {
  const halves = (text: string) => [text.slice(0, Math.ceil(text.length / 2)), text.slice(Math.ceil(text.length / 2))].filter(Boolean);
  const usage = usageOf(input);
  const events: Record<string, unknown>[] = [
    { type: 'message_start', message: { id: 'msg_test', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } },
    { type: 'ping' },
  ];
  blocksOf(input).forEach((block, index) => {
    if (block.type === 'thinking') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const piece of halves(block.thinking as string)) events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
    } else if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const piece of halves(block.text as string)) events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    } else if (block.type === 'tool_use') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      const call = input.toolCalls![index - blocksOf(input).findIndex((b) => b.type === 'tool_use')]!;
      for (const piece of halves(inputOf(call))) events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
    } else {
      events.push({ type: 'content_block_start', index, content_block: block });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: stopOf(input), stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  events.push({ type: 'message_stop' });
  return events;
}

/** How the Anthropic wire speaks, for the provider kit's shared wire suite. */
export const anthropicDialect: WireDialect = {
  provider: 'anthropic',
  framing: 'sse-events',
  plugin: (url, options): Plugin => anthropic({ baseURL: url, apiKey: 'sk-ant-test', defaultModel: 'm', ...options }),
  idleTimeout: (ms) => ({ timeoutMs: ms }),
  answer: (input) => message(input),
  streamed: (input) => streamedMessage(input),
  stream: (pieces, usage) => streamedMessage({ content: pieces.join(''), usage }).flatMap((e) => (e.type === 'content_block_delta'
    ? [] : e.type === 'content_block_start' ? [e, ...pieces.map((text) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }))] : [e])),
  piece: (text) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
  error: (message) => ({ type: 'error', error: { type: 'api_error', message } }),
  urlOption: 'baseURL',
  streamError: (message) => ({ type: 'error', error: { type: 'overloaded_error', message } }),
  finishWords: { length: 'max_tokens', content_filter: 'refusal' },
  reportsCache: true,
  echoedReasoning: (body, n) => {
    const m = body.messages.filter((x: any) => x.role === 'assistant')[n];
    const thinking = (Array.isArray(m?.content) ? m.content : []).filter((b: any) => b.type === 'thinking');
    return thinking.length ? thinking.map((b: any) => b.thinking).join('') : undefined;
  },
  maxTokensOf: (body) => body.max_tokens,
};
