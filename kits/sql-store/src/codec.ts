import type { SqlValue, StoredMessage } from '@oryxos/contracts';
import { errorMessage, type Message, type OryxError, type ToolCall } from '@oryxos/provider-spec';
import { storeError } from './errors.ts';

/** A `messages` row as the store reads it; a damaged row may hold anything in any column. */
export interface MessageRow {
  seq: number;
  role: unknown;
  content: unknown;
  tool_calls: unknown;
  tool_call_id: unknown;
  name: unknown;
  is_error: unknown;
  extra: unknown;
  created_at: unknown;
}

export const MESSAGE_COLUMNS = 'seq, role, content, tool_calls, tool_call_id, name, is_error, extra, created_at';

const KNOWN = new Set(['role', 'content', 'toolCalls', 'toolCallId', 'name', 'isError']);
const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

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

/** Why a column of a stored message cannot be read. */
class Damage extends Error {
  constructor(readonly column: string, reason: string) { super(`${column} ${reason}`); }
}

/**
 * The message of a row, with only the fields that were set when it was appended. A row that
 * does not hold a message (bad JSON, a wrong type: a damaged file, a hand edit) throws
 * ORYX_E_SQLITE_CORRUPT_ROW naming the session, the message's seq and the column.
 */
export function decodeMessage(row: MessageRow, sessionId: string): StoredMessage {
  try {
    return decodeRow(row);
  } catch (error) {
    throw corruptRowError(sessionId, row.seq, error);
  }
}

/** Like {@link decodeMessage}, but a damaged row comes back as what is wrong with it. */
export function tryDecodeMessage(row: MessageRow, sessionId: string): StoredMessage | OryxError {
  try {
    return decodeRow(row);
  } catch (error) {
    return corruptRowError(sessionId, row.seq, error);
  }
}

function corruptRowError(sessionId: string, seq: number, error: unknown): OryxError {
  const column = error instanceof Damage ? error.column : undefined;
  return storeError('ORYX_E_SQLITE_CORRUPT_ROW', `Message #${seq} of session "${sessionId}" cannot be read: ${errorMessage(error)}`, {
    cause: error,
    hint: `Run \`oryx sessions repair ${sessionId}\`: it moves the unreadable message(s) to the messages_quarantine table (nothing is deleted) and the session works again.`,
    data: { sessionId, seq: Number(seq), ...(column ? { column } : {}) },
  });
}

function decodeRow(row: MessageRow): StoredMessage {
  const role = text(row.role, 'role');
  if (!ROLES.has(role)) throw new Damage('role', `is ${JSON.stringify(role)}, not system, user, assistant or tool`);
  const message: Record<string, unknown> = { role, content: text(row.content, 'content') };
  if (row.tool_calls !== null) message.toolCalls = toolCalls(json(row.tool_calls, 'tool_calls'));
  if (row.tool_call_id !== null) message.toolCallId = text(row.tool_call_id, 'tool_call_id');
  if (row.name !== null) message.name = text(row.name, 'name');
  if (row.is_error !== null) {
    if (typeof row.is_error !== 'number' && typeof row.is_error !== 'bigint') throw new Damage('is_error', 'is not 0 or 1');
    message.isError = Number(row.is_error) === 1;
  }
  if (row.extra !== null) {
    const extra = json(row.extra, 'extra');
    if (!extra || typeof extra !== 'object' || Array.isArray(extra)) throw new Damage('extra', 'is not a JSON object');
    Object.assign(message, extra);
  }
  return { seq: Number(row.seq), message: message as unknown as Message, createdAt: text(row.created_at, 'created_at') };
}

function text(value: unknown, column: string): string {
  if (typeof value === 'string') return value;
  throw new Damage(column, value instanceof Uint8Array ? `holds ${value.length} bytes that are not text` : `is ${value === null ? 'NULL' : typeof value}, not text`);
}

function json(value: unknown, column: string): unknown {
  const raw = text(value, column);
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new Damage(column, `is not valid JSON (${errorMessage(error)})`);
  }
}

function toolCalls(value: unknown): ToolCall[] {
  const ok = Array.isArray(value) && value.every((c) => c && typeof c === 'object' && typeof c.id === 'string' && typeof c.name === 'string');
  if (!ok) throw new Damage('tool_calls', 'is not a list of tool calls with an id and a name');
  return value as ToolCall[];
}
