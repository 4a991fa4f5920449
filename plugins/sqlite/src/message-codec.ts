import type { Message, SqlValue, StoredMessage, ToolCall } from '@oryxos/kernel';

/** A `messages` row as the store reads it. */
export interface MessageRow {
  seq: number;
  role: string;
  content: string;
  tool_calls: string | null;
  tool_call_id: string | null;
  name: string | null;
  is_error: number | null;
  extra: string | null;
  created_at: string;
}

export const MESSAGE_COLUMNS = 'seq, role, content, tool_calls, tool_call_id, name, is_error, extra, created_at';

const KNOWN = new Set(['role', 'content', 'toolCalls', 'toolCallId', 'name', 'isError']);

/**
 * The column values of a message. Fields the schema has no column for (a provider's extras)
 * go to `extra` as JSON, so a message reads back exactly as it was appended.
 */
export function encodeMessage(message: Message): { role: string; content: string; toolCalls: SqlValue; toolCallId: SqlValue; name: SqlValue; isError: SqlValue; extra: SqlValue } {
  const m = message as Message & Partial<{ toolCalls: ToolCall[]; toolCallId: string; name: string; isError: boolean }>;
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(m)) if (!KNOWN.has(key) && value !== undefined) extra[key] = value;
  return {
    role: m.role,
    content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''),
    toolCalls: m.toolCalls === undefined ? null : JSON.stringify(m.toolCalls),
    toolCallId: m.toolCallId ?? null,
    name: m.name ?? null,
    isError: m.isError === undefined ? null : m.isError ? 1 : 0,
    extra: Object.keys(extra).length ? JSON.stringify(extra) : null,
  };
}

/** The message of a row, with only the fields that were set when it was appended. */
export function decodeMessage(row: MessageRow): StoredMessage {
  const message: Record<string, unknown> = { role: row.role, content: row.content };
  if (row.tool_calls !== null) message.toolCalls = JSON.parse(row.tool_calls);
  if (row.tool_call_id !== null) message.toolCallId = row.tool_call_id;
  if (row.name !== null) message.name = row.name;
  if (row.is_error !== null) message.isError = Number(row.is_error) === 1;
  if (row.extra !== null) Object.assign(message, JSON.parse(row.extra));
  return { seq: Number(row.seq), message: message as unknown as Message, createdAt: row.created_at };
}
