/**
 * The model: a loopback server speaking OpenAI's chat-completions wire (the provider kit's
 * wireServer), so the real openai plugin and SDK make the calls and the server sees their
 * headers. Answers follow the `chat.completion` object of OpenAI's API reference
 * (https://platform.openai.com/docs/api-reference/chat/object): `choices[0].message` with
 * `content` or `tool_calls`, `finish_reason`, `usage`.
 */
import { wireServer, type WireServer } from '@oryxos/provider-kit/testing';

export interface WireCall { id: string; name: string; args: Record<string, unknown> }

/** A chat.completion: text, or tool calls; 100 prompt tokens and 10 completion tokens. */
export function completion(input: { content?: string; calls?: WireCall[]; model?: string }) {
  const calls = input.calls?.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }));
  return {
    id: 'chatcmpl-otel', object: 'chat.completion', created: 1, model: input.model ?? 'gpt-test-2026',
    choices: [{ index: 0, message: { role: 'assistant', content: input.content ?? null, ...(calls?.length ? { tool_calls: calls } : {}) }, finish_reason: calls?.length ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
  };
}

/** Messages as the server gets them. */
export interface WireMessage { role: string; content?: string | null; tool_calls?: unknown[] }

/** A server answering each request with `answer(messages)`. */
export function modelServer(answer: (messages: WireMessage[], index: number) => ReturnType<typeof completion>, max = 50): Promise<WireServer> {
  return wireServer(Array.from({ length: max }, () => (body: { messages: WireMessage[] }, index: number) => ({ json: answer(body.messages, index) })), { framing: 'sse', basePath: '/v1' });
}
