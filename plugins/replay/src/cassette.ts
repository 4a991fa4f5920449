import type { ChatResponse, Message } from '@oryxos/provider-spec';
import { OryxError } from '@oryxos/provider-spec';

/**
 * One message of a recorded conversation, reduced to what replay matches on. The system
 * prompt (it holds the current time), assistant text, ids and tool output are left out:
 * they change from run to run while the conversation stays the same.
 */
export type KeyMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; toolCalls?: { name: string; args: Record<string, unknown> }[] }
  | { role: 'tool'; name: string; isError?: true };

/** What the model answered. Every field is optional when written by hand. */
export interface RecordedResponse {
  content?: string;
  toolCalls?: { name: string; args?: Record<string, unknown>; argsError?: string }[];
  usage?: { inputTokens?: number; outputTokens?: number };
  finishReason?: string;
}

/** One line of a cassette file. */
export interface CassetteEntry {
  request: { messages: KeyMessage[] };
  response: RecordedResponse;
  model?: string;
  recordedAt?: string;
}

/** A parsed entry with the line it came from (for messages). */
export interface LoadedEntry extends CassetteEntry { line: number; keys: string[] }

/** The match key of a conversation: one KeyMessage per non-system message, in order. */
export function conversationKey(messages: Message[]): KeyMessage[] {
  const out: KeyMessage[] = [];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.content });
    else if (m.role === 'assistant') {
      out.push(m.toolCalls?.length
        ? { role: 'assistant', toolCalls: m.toolCalls.map((c) => ({ name: c.name, args: c.args ?? {} })) }
        : { role: 'assistant' });
    } else if (m.role === 'tool') out.push(m.isError ? { role: 'tool', name: m.name, isError: true } : { role: 'tool', name: m.name });
  }
  return out;
}

/** The recorded form of a response (ids dropped: replay makes fresh ones). */
export function recordResponse(response: ChatResponse): RecordedResponse {
  const calls = response.message.toolCalls ?? [];
  return {
    content: response.message.content,
    ...(calls.length ? { toolCalls: calls.map((c) => ({ name: c.name, args: c.args, ...(c.argsError !== undefined ? { argsError: c.argsError } : {}) })) } : {}),
    usage: { ...response.usage },
    finishReason: response.finishReason,
  };
}

/** JSON with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` compare equal. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The comparable form of one key message: fields outside the key (hand-written notes) are ignored. */
export function messageKey(m: KeyMessage): string {
  if (m.role === 'user') return canonical({ role: 'user', content: m.content });
  if (m.role === 'tool') return canonical({ role: 'tool', name: m.name, isError: m.isError === true });
  return canonical({ role: 'assistant', toolCalls: (m.toolCalls ?? []).map((c) => ({ name: c.name, args: c.args ?? {} })) });
}

/** Parses a cassette file. Blank lines and lines starting with `#` or `//` are skipped. */
export function parseCassette(text: string, file: string): LoadedEntry[] {
  const entries: LoadedEntry[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('//')) return;
    const bad = (why: string): never => {
      throw new OryxError('ORYX_E_REPLAY_CASSETTE_INVALID', `${file}:${i + 1}: ${why}`, {
        hint: 'Each line is {"request":{"messages":[…]},"response":{…}}; see the @oryxos/plugin-replay README for the format.',
        data: { file, line: i + 1 },
      });
    };
    let entry: CassetteEntry;
    try { entry = JSON.parse(line); } catch (error) { return bad(`not valid JSON (${(error as Error).message})`); }
    if (!entry || typeof entry !== 'object') bad('a line must be a JSON object');
    const messages = entry.request?.messages;
    if (!Array.isArray(messages)) bad('request.messages must be an array');
    messages.forEach((m, j) => {
      const where = `request.messages[${j}]`;
      if (!m || typeof m !== 'object') bad(`${where} must be an object`);
      if (m.role === 'user') { if (typeof m.content !== 'string') bad(`${where}: a user message needs "content"`); }
      else if (m.role === 'tool') { if (typeof m.name !== 'string') bad(`${where}: a tool message needs "name" (the tool)`); }
      else if (m.role === 'assistant') {
        if (m.toolCalls !== undefined && (!Array.isArray(m.toolCalls) || m.toolCalls.some((c) => typeof c?.name !== 'string'))) {
          bad(`${where}: toolCalls must be a list of {"name", "args"}`);
        }
      } else bad(`${where}: role must be user, assistant or tool (system prompts are not matched)`);
    });
    const response = entry.response;
    if (!response || typeof response !== 'object') bad('response must be an object');
    if (response.content !== undefined && typeof response.content !== 'string') bad('response.content must be a string');
    if (response.toolCalls !== undefined && (!Array.isArray(response.toolCalls) || response.toolCalls.some((c) => typeof c?.name !== 'string'))) {
      bad('response.toolCalls must be a list of {"name", "args"}');
    }
    entries.push({ ...entry, line: i + 1, keys: messages.map(messageKey) });
  });
  return entries;
}

/** The entry recorded for this conversation; the last one wins, so re-recording by appending works. */
export function findEntry(entries: LoadedEntry[], keys: string[]): LoadedEntry | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.keys.length === keys.length && e.keys.every((k, j) => k === keys[j])) return e;
  }
  return undefined;
}

/** How a key message reads in an error. */
export function describe(m: KeyMessage | undefined): string {
  if (!m) return 'nothing (the conversation ends here)';
  const cut = (s: string) => (s.length > 160 ? `${s.slice(0, 160)}…` : s);
  if (m.role === 'user') return `user ${JSON.stringify(cut(m.content))}`;
  if (m.role === 'tool') return `tool result of ${m.name} (${m.isError ? 'an error' : 'ok'})`;
  if (!m.toolCalls?.length) return 'an assistant answer without tool calls';
  return `assistant calling ${m.toolCalls.map((c) => `${c.name} ${cut(canonical(c.args ?? {}))}`).join(', ')}`;
}

/**
 * Why no entry matches: the entry sharing the longest prefix with the conversation, and the
 * first message where the two part.
 */
export function divergence(entries: LoadedEntry[], conversation: KeyMessage[], keys: string[]): {
  entry?: LoadedEntry; index: number; actual?: KeyMessage; expected?: KeyMessage;
} {
  let best: { entry: LoadedEntry; prefix: number } | undefined;
  for (const entry of entries) {
    let prefix = 0;
    while (prefix < keys.length && prefix < entry.keys.length && keys[prefix] === entry.keys[prefix]) prefix++;
    // On a tie the shortest entry is the closest continuation of the conversation so far.
    if (!best || prefix > best.prefix || (prefix === best.prefix && entry.keys.length < best.entry.keys.length)) best = { entry, prefix };
  }
  if (!best) return { index: 0, actual: conversation[0] };
  return { entry: best.entry, index: best.prefix, actual: conversation[best.prefix], expected: best.entry.request.messages[best.prefix] };
}
