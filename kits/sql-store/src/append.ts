import type { DatabaseTx, SqlValue } from '@oryxos/contracts';
import { isOryxError, type Message, type OryxError } from '@oryxos/provider-spec';
import { encodeMessage } from './codec.ts';
import { storeError } from './errors.ts';
import { isUniqueViolation } from './sql.ts';
import type { StoreDatabase } from './store-database.ts';

/**
 * How long the newest session keeps its `updated_at` while messages are appended to it (SQLite).
 * Writing `updated_at` moves the session in both of its time-ordered indexes: two more pages to
 * commit with every message. Only the session listed first can skip it without changing any
 * order (it is first in every filtered list too), so `updatedAt` lags by less than this.
 */
const KEEP_UPDATED_MS = 1000;

/** The newest session, updated after the second parameter (an ISO time), is the first parameter. */
const IS_NEWEST = 'EXISTS (SELECT 1 FROM sessions WHERE id = ? AND updated_at > ? AND id = (SELECT id FROM sessions ORDER BY updated_at DESC, id DESC LIMIT 1))';

/**
 * The append's session update when the session is the newest and was updated less than {@link KEEP_UPDATED_MS} ago.
 * `message_count` and `counted_seq` always move together: a session holds
 * {@link MESSAGE_COUNT} messages, whether or not an append wrote its row.
 */
const TOUCH_NEWEST = `UPDATE sessions SET message_count = message_count + ?, counted_seq = counted_seq + ?, turns = turns + ?,
  title = CASE WHEN title = '' THEN ? ELSE title END WHERE id = ? AND ${IS_NEWEST}`;

/** The append's session update when it moves `updated_at` (and, on PostgreSQL, takes the session row's lock). */
const UPDATE_SESSION = `UPDATE sessions SET updated_at = ?, message_count = message_count + ?, counted_seq = counted_seq + ?, turns = turns + ?,
  title = CASE WHEN title = '' THEN ? ELSE title END WHERE id = ?`;

/** A message after the session's last one (SQLite: the aggregate gives one row even for an empty session). */
const APPEND_NEXT = `INSERT INTO messages (session_id, seq, role, content, tool_calls, tool_call_id, name, is_error, extra, created_at)
  SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ?, ?, ?, ? FROM messages WHERE session_id = ?`;

/**
 * {@link APPEND_NEXT} only when the session is the newest and was updated less than
 * {@link KEEP_UPDATED_MS} ago (no row otherwise): then an append of no user message leaves the
 * session row as it is (its title and turns come from user messages, its count from the last seq),
 * one page less to commit per message (WAL pages per loop step 13.2 → 11.3, `bench/steps.ts`,
 * whose model answers at once). With a model slower than a second the assistant's message comes
 * more than a second after the last write and writes the row (so `updatedAt` stays within a second);
 * the tool result right after it still skips it: one page a step, not two.
 */
const APPEND_NEXT_IF_NEWEST = `${APPEND_NEXT} HAVING ${IS_NEWEST}`;

const INSERT_AT = `INSERT INTO messages (session_id, seq, role, content, tool_calls, tool_call_id, name, is_error, extra, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * How many messages a session holds, as a column expression over its `sessions` row: the count
 * written with its row, plus the messages appended since without writing it (each takes the next
 * seq, so the last seq counts them).
 */
export const MESSAGE_COUNT = 'sessions.message_count + COALESCE((SELECT MAX(seq) FROM messages WHERE messages.session_id = sessions.id), 0) - sessions.counted_seq';

type Encoded = ReturnType<typeof encodeMessage>;
type Step = [string, SqlValue[]];

/**
 * An append on SQLite, as the statements it runs (each yields `[sql, params]` and gets the
 * statement's result back), so the synchronous and the asynchronous drivers share it. Inside the
 * write transaction, which already serializes appends. The session row first: it says whether
 * the session exists; then each row takes the next position in the INSERT itself.
 */
function* appendSqlite(id: string, encoded: readonly Encoded[], title: string, turns: number): Generator<Step, void, { rowsAffected: number }> {
  const at = Date.now();
  const now = new Date(at).toISOString();
  const recent = new Date(at - KEEP_UPDATED_MS).toISOString();
  const row = (m: Encoded): SqlValue[] => [id, m.role, m.content, m.toolCalls, m.toolCallId, m.name, m.isError, m.extra, now, id];
  let rest = encoded;
  if (turns === 0 && (yield [APPEND_NEXT_IF_NEWEST, [...row(encoded[0]!), id, recent]]).rowsAffected > 0) {
    rest = encoded.slice(1);
  } else {
    const n = encoded.length;
    const touched = (yield [TOUCH_NEWEST, [n, n, turns, title, id, id, recent]]).rowsAffected > 0;
    if (!touched && (yield [UPDATE_SESSION, [now, n, n, turns, title, id]]).rowsAffected === 0) throw notFound(id);
  }
  for (const m of rest) yield [APPEND_NEXT, row(m)];
}

/**
 * PostgreSQL: the session row first: it says whether the session exists, and its row lock makes
 * concurrent appends to one session take turns, so MAX(seq) after it sees the previous one's rows.
 */
async function appendPostgres(tx: DatabaseTx, id: string, encoded: readonly Encoded[], title: string, turns: number): Promise<void> {
  const now = new Date().toISOString();
  const updated = await tx.execute(UPDATE_SESSION, [now, encoded.length, encoded.length, turns, title, id]);
  if (updated.rowsAffected === 0) throw notFound(id);
  const [top] = await tx.query<{ seq: number | null }>('SELECT MAX(seq) AS seq FROM messages WHERE session_id = ?', [id]);
  let seq = Number(top?.seq ?? 0);
  for (const m of encoded) {
    await tx.execute(INSERT_AT, [id, ++seq, m.role, m.content, m.toolCalls, m.toolCallId, m.name, m.isError, m.extra, now]);
  }
}

/**
 * Appends `messages` to session `id` in one transaction: the embedded SQLite driver runs the
 * statements in one synchronous go, the others await each. A position another writer took is
 * retried `retries` times, then ORYX_E_SQLITE_APPEND_CONFLICT, having written nothing.
 *
 * @example
 * await appendMessages(db, sessionId, [{ role: 'user', content: 'hi' }], 5);
 */
export async function appendMessages(db: StoreDatabase, id: string, messages: Message[], retries: number): Promise<void> {
  if (messages.length === 0) return;
  const encoded = messages.map(encodeMessage);
  const title = titleOf(messages.find((m) => m.role === 'user')?.content ?? '');
  const turns = messages.filter((m) => m.role === 'user').length;
  for (let attempt = 0; ; attempt++) {
    try {
      if (db.writeSync) {
        await db.writeSync((tx) => {
          const steps = appendSqlite(id, encoded, title, turns);
          for (let step = steps.next(); !step.done;) step = steps.next(tx.execute(step.value[0], step.value[1]));
        });
      } else {
        await db.transaction(async (tx) => {
          if (tx.dialect === 'postgres') return appendPostgres(tx, id, encoded, title, turns);
          const steps = appendSqlite(id, encoded, title, turns);
          for (let step = steps.next(); !step.done;) step = steps.next(await tx.execute(step.value[0], step.value[1]));
        });
      }
      return;
    } catch (error) {
      const conflict = isUniqueViolation(error, 'messages_session_seq', /messages\.session_id, messages\.seq/);
      const busy = isOryxError(error) && (error.code === 'ORYX_E_SQLITE_BUSY' || error.code === 'ORYX_E_PG_CONFLICT');
      if (!conflict && !busy) throw error;
      if (attempt >= retries) {
        if (busy) throw error;
        throw storeError('ORYX_E_SQLITE_APPEND_CONFLICT',
          `Appending to session "${id}" conflicted with another writer ${attempt + 1} times; nothing of this append was written`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** attempt));
    }
  }
}

function notFound(id: string): OryxError {
  return storeError('ORYX_E_SQLITE_SESSION_NOT_FOUND', `Cannot append to session "${id}": it does not exist`);
}

/** The first 80 characters, never half of a surrogate pair. */
function titleOf(content: string): string {
  const title = content.slice(0, 80);
  return /[\uD800-\uDBFF]$/.test(title) ? title.slice(0, -1) : title;
}
