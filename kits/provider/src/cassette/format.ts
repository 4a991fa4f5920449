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

/**
 * What a model call's prompt held that stays the same from run to run, as short hashes of each
 * part: the agent's own sections (its instructions, bootstrap files, skill index — never the
 * clock or memory) and each tool offered (its description and input schema). A recording
 * that carries it is replayed only while the prompt still matches, so a changed AGENT.md or
 * tool makes the replay diverge instead of passing on stale answers.
 */
export interface PromptPrint {
  /** Section id (`agent`, `AGENTS.md`, `skills`, …) → hash of its text. */
  system: Record<string, string>;
  /** Tool name → hash of its description and input schema. */
  tools: Record<string, string>;
}

/** One line of a cassette file. */
export interface CassetteEntry {
  /** `prompt` is written by recorders that know the prompt (`oryx eval --record`); lines without it match any prompt. */
  request: { messages: KeyMessage[]; prompt?: PromptPrint };
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
    const prompt = entry.request.prompt;
    if (prompt !== undefined && !isPrint(prompt)) bad('request.prompt must be {"system": {section: hash}, "tools": {tool: hash}}');
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

const isHashes = (v: unknown): v is Record<string, string> =>
  !!v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((h) => typeof h === 'string');
const isPrint = (v: unknown): v is PromptPrint => !!v && typeof v === 'object' && isHashes((v as PromptPrint).system) && isHashes((v as PromptPrint).tools);

/** The first 16 hex digits of the SHA-256 of `text` (Web Crypto: node:crypto would load with every command). */
async function shortHash(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(digest.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The {@link PromptPrint} of a prompt's stable parts.
 *
 * @example
 * await promptPrint([{ id: 'agent', content: 'You are careful.' }], [{ name: 'read_file', description: 'Read a file', inputSchema: {} }]);
 * // { system: { agent: '…' }, tools: { read_file: '…' } }
 */
export async function promptPrint(
  sections: readonly { id: string; content: string }[],
  tools: readonly { name: string; description: string; inputSchema: unknown }[],
): Promise<PromptPrint> {
  const system: Record<string, string> = {};
  for (const s of sections) system[s.id] = await shortHash(s.content);
  const byName: Record<string, string> = {};
  for (const t of tools) byName[t.name] = await shortHash(canonical({ description: t.description, inputSchema: t.inputSchema }));
  return { system, tools: byName };
}

const SECTION_NAMES: Record<string, string> = { agent: "the agent's instructions (the body of AGENT.md)", skills: 'the skill index' };

/**
 * How `current` differs from `recorded`, in words (`the agent's instructions (the body of
 * AGENT.md) changed; tool write_file is new`), or undefined when it does not.
 */
export function promptDifference(recorded: PromptPrint, current: PromptPrint): string | undefined {
  const changes: string[] = [];
  const compare = (was: Record<string, string>, now: Record<string, string>, name: (k: string) => string) => {
    for (const k of Object.keys(was)) {
      if (!(k in now)) changes.push(`${name(k)} is gone`);
      else if (was[k] !== now[k]) changes.push(`${name(k)} changed`);
    }
    for (const k of Object.keys(now)) if (!(k in was)) changes.push(`${name(k)} is new`);
  };
  compare(recorded.system, current.system, (k) => SECTION_NAMES[k] ?? k);
  compare(recorded.tools, current.tools, (k) => `tool ${k}`);
  return changes.length ? changes.join('; ') : undefined;
}
