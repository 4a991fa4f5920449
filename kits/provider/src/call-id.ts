import type { Message } from '@oryxos/provider-spec';

/**
 * An id for a tool call the server sent without one (Ollama never sends one; an
 * OpenAI-compatible server may not): derived from the conversation so far and the call's
 * position, so the same conversation always gives the same ids (replays, tests), and two calls
 * of one response never share one.
 *
 * @example
 * stableCallId(request.messages, 0, 'read_file', { path: 'a.txt' }) // 'call_3f9c…'
 */
export function stableCallId(messages: Message[], index: number, name: string, args: unknown): string {
  const last = messages.at(-1);
  const seed = JSON.stringify([messages.length, last?.role, last?.content, index, name, args]);
  // node:crypto when a call needs an id, not with the plugin on every command (~3 ms).
  return `call_${process.getBuiltinModule('node:crypto').createHash('sha256').update(seed).digest('hex').slice(0, 24)}`;
}
