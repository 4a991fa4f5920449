import { setTimeout as sleep } from 'node:timers/promises';
import { isOryxError, type OryxError, type Message } from '@oryxos/provider-spec';
import type { CallStart, Database, ExternalRef, Page, SessionInfo, SessionStore, SqlValue, StoredMessage } from '@oryxos/contracts';
import type { Logger } from '@oryxos/kernel';
import type { OpenDatabase } from './database.ts';
import { sqliteError } from './errors.ts';
import { SessionLeases } from './leases.ts';
import { MESSAGE_COLUMNS, decodeMessage, encodeMessage, tryDecodeMessage, type MessageRow } from './message-codec.ts';

interface SessionRow {
  id: string;
  agent: string;
  title: unknown;
  created_at: string;
  updated_at: string;
  message_count: number;
  parent_session_id: string | null;
  turns: number;
  external_door: string | null;
  external_id: string | null;
  tags: string | null;
}

const SESSION_COLUMNS = 'id, agent, title, created_at, updated_at, message_count, parent_session_id, turns, external_door, external_id, tags';

/**
 * How long the newest session keeps its `updated_at` while messages are appended to it (SQLite).
 * Writing `updated_at` moves the session in both of its time-ordered indexes: two more pages to
 * commit with every message. Only the session listed first can skip it without changing any
 * order (it is first in every filtered list too), so `updatedAt` lags by less than this.
 */
const KEEP_UPDATED_MS = 1000;

/** The append's session update when the session is the newest and was updated less than {@link KEEP_UPDATED_MS} ago. */
const TOUCH_NEWEST = `UPDATE sessions SET message_count = message_count + ?, turns = turns + ?, title = CASE WHEN title = '' THEN ? ELSE title END
  WHERE id = ? AND updated_at > ? AND id = (SELECT id FROM sessions ORDER BY updated_at DESC, id DESC LIMIT 1)`;

/** A message after the session's last one (SQLite: the aggregate gives one row even for an empty session). */
const APPEND_NEXT = `INSERT INTO messages (session_id, seq, role, content, tool_calls, tool_call_id, name, is_error, extra, created_at)
  SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ?, ?, ?, ? FROM messages WHERE session_id = ?`;

/** The append's session update when it moves `updated_at` (and, on PostgreSQL, takes the session row's lock). */
const UPDATE_SESSION = `UPDATE sessions SET updated_at = ?, message_count = message_count + ?, turns = turns + ?,
  title = CASE WHEN title = '' THEN ? ELSE title END WHERE id = ?`;

/**
 * An append on SQLite, as the statements it runs (each yields `[sql, params]` and gets the
 * statement's result back), so the synchronous and the asynchronous drivers share it. Inside the
 * write transaction, which already serializes appends. The session row first: it says whether
 * the session exists; then each row takes the next position in the INSERT itself.
 */
function* appendSqlite(id: string, encoded: readonly ReturnType<typeof encodeMessage>[], title: string): Generator<[string, SqlValue[]], void, { rowsAffected: number }> {
  const at = Date.now();
  const now = new Date(at).toISOString();
  const turns = encoded.filter((m) => m.role === 'user').length;
  const touched = (yield [TOUCH_NEWEST, [encoded.length, turns, title, id, new Date(at - KEEP_UPDATED_MS).toISOString()]]).rowsAffected > 0;
  if (!touched && (yield [UPDATE_SESSION, [now, encoded.length, turns, title, id]]).rowsAffected === 0) throw notFound(id);
  for (const m of encoded) yield [APPEND_NEXT, [id, m.role, m.content, m.toolCalls, m.toolCallId, m.name, m.isError, m.extra, now, id]];
}

function notFound(id: string): OryxError {
  return sqliteError('ORYX_E_SQLITE_SESSION_NOT_FOUND', `Cannot append to session "${id}": it does not exist`);
}

/** A stored message that cannot be read, in its place in {@link SqliteSessionStore.scan}. */
export interface DamagedMessage {
  seq: number;
  /** ORYX_E_SQLITE_CORRUPT_ROW, naming the session, the seq and the column. */
  damaged: OryxError;
}

export interface SqliteSessionStoreOptions {
  leaseMs?: number;
  lockTimeoutMs?: number;
  appendRetries?: number;
  log?: Logger;
  /** The plugin that runs the store, for its log lines. Default `sqlite`. */
  name?: string;
  /**
   * Called when another process asks to stop this process's run on a session (it is deleting
   * it with `force`); the plugin aborts the session's runs here.
   */
  onCancelRequested?(sessionId: string, by: string): void;
}

/**
 * The durable session store (`kernel.service('sessions')`): one row per message, each
 * `append` its own transaction (two statements for one message on SQLite), positions (`seq`) assigned inside it and guarded by
 * UNIQUE(session_id, seq). `lock` serializes runs on a session across processes.
 *
 * @example
 * const store = new SqliteSessionStore(() => db);
 * const s = await store.create({ agent: 'assistant' });
 * await store.append(s.id, [{ role: 'user', content: 'hi' }]);
 * const last = await store.history(s.id, 20);
 */
export class SqliteSessionStore implements SessionStore {
  private readonly leases: SessionLeases;
  private readonly appendRetries: number;

  /** `db` is a getter: the plugin provides the store in setup and opens the database later. */
  constructor(private readonly db: () => Omit<Database, 'migrate'>, options: SqliteSessionStoreOptions = {}) {
    const log = options.log ?? { debug() {}, info() {}, warn() {} };
    this.appendRetries = options.appendRetries ?? 5;
    this.leases = new SessionLeases(db, {
      leaseMs: options.leaseMs ?? 30_000, lockTimeoutMs: options.lockTimeoutMs ?? 120_000, onCancelRequested: options.onCancelRequested,
      name: options.name ?? 'sqlite',
    }, log);
  }

  async create(input: { agent: string; title?: string; id?: string; parentSessionId?: string; external?: ExternalRef; tags?: string[] }): Promise<SessionInfo> {
    const now = new Date().toISOString();
    const info: SessionInfo = {
      id: input.id ?? crypto.randomUUID(), agent: input.agent, title: input.title ?? '', createdAt: now, updatedAt: now, messageCount: 0, turns: 0,
      ...(input.parentSessionId ? { parentSessionId: input.parentSessionId } : {}),
      ...(input.external ? { external: { ...input.external } } : {}),
      ...(input.tags?.length ? { tags: [...input.tags] } : {}),
    };
    try {
      await this.db().execute(
        `INSERT INTO sessions (id, agent, title, created_at, updated_at, message_count, parent_session_id, turns, external_door, external_id, tags)
          VALUES (?, ?, ?, ?, ?, 0, ?, 0, ?, ?, ?)`,
        [info.id, info.agent, info.title, now, now, input.parentSessionId ?? null, input.external?.door ?? null, input.external?.id ?? null,
          input.tags?.length ? JSON.stringify(input.tags) : null],
      );
    } catch (error) {
      if (isUniqueViolation(error, { sqlite: /sessions\.id/, postgres: 'sessions_pkey' })) {
        throw sqliteError('ORYX_E_SQLITE_SESSION_EXISTS', `A session with id "${info.id}" already exists`, { cause: error });
      }
      throw error;
    }
    return info;
  }

  async findOrCreate(input: { agent: string; external: ExternalRef; title?: string }): Promise<SessionInfo> {
    const find = async () => (await this.db().query<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE external_door = ? AND external_id = ? AND agent = ?`, [input.external.door, input.external.id, input.agent]))[0];
    const found = await find();
    if (found) return toInfo(found);
    try {
      return await this.create(input);
    } catch (error) {
      // Another process created it first (the unique index on the outside id): theirs it is.
      const raced = await find();
      if (raced) return toInfo(raced);
      throw error;
    }
  }

  async markStarted(mark: CallStart): Promise<void> {
    await this.db().execute(
      `INSERT INTO call_starts (session_id, tool_call_id, run_id, tool, args_hash, started_at) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (session_id, tool_call_id) DO UPDATE SET run_id = excluded.run_id, tool = excluded.tool, args_hash = excluded.args_hash, started_at = excluded.started_at`,
      [mark.sessionId, mark.toolCallId, mark.runId, mark.tool, mark.argsHash, mark.startedAt],
    );
  }

  async startedWithoutResult(sessionId: string): Promise<CallStart[]> {
    const rows = await this.db().query<{ session_id: string; tool_call_id: string; run_id: string; tool: string; args_hash: string; started_at: string }>(
      `SELECT * FROM call_starts c WHERE c.session_id = ?
        AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.session_id = c.session_id AND m.role = 'tool' AND m.tool_call_id = c.tool_call_id)
        ORDER BY c.started_at`, [sessionId]);
    return rows.map((r) => ({ sessionId: r.session_id, toolCallId: r.tool_call_id, runId: r.run_id, tool: r.tool, argsHash: r.args_hash, startedAt: r.started_at }));
  }

  async get(id: string): Promise<SessionInfo | undefined> {
    const [row] = await this.db().query<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`, [id]);
    return row && toInfo(row);
  }

  /** Newest first (by last activity), paged with an opaque keyset cursor. */
  async list(query: { agent?: string; parentSessionId?: string; tag?: string; limit?: number; cursor?: string } = {}): Promise<Page<SessionInfo>> {
    const limit = Math.max(1, Math.min(1000, Math.floor(query.limit ?? 50)));
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (query.agent) { where.push('agent = ?'); params.push(query.agent); }
    if (query.tag) { where.push("tags LIKE ?"); params.push(`%${JSON.stringify(query.tag)}%`); }
    if (query.parentSessionId) { where.push('parent_session_id = ?'); params.push(query.parentSessionId); }
    if (query.cursor) {
      const [updatedAt, id] = decodeCursor(query.cursor);
      where.push('(updated_at < ? OR (updated_at = ? AND id < ?))');
      params.push(updatedAt, updatedAt, id);
    }
    const rows = await this.db().query<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY updated_at DESC, id DESC LIMIT ?`,
      [...params, limit + 1],
    );
    const items = rows.slice(0, limit).map(toInfo);
    const last = items[items.length - 1];
    return { items, ...(rows.length > limit && last ? { nextCursor: encodeCursor(last.updatedAt, last.id) } : {}) };
  }

  async messages(id: string, query: { limit?: number } = {}): Promise<StoredMessage[]> {
    return (await this.rows(id, query.limit)).map((row) => decodeMessage(row, id));
  }

  /**
   * Like {@link messages}, but a message that cannot be read (ORYX_E_SQLITE_CORRUPT_ROW) is in
   * its place as `{ seq, damaged }` instead of failing the whole read: what `oryx sessions
   * show` prints.
   */
  async scan(id: string, query: { limit?: number } = {}): Promise<(StoredMessage | DamagedMessage)[]> {
    return (await this.rows(id, query.limit)).map((row) => {
      const decoded = tryDecodeMessage(row, id);
      return isOryxError(decoded) ? { seq: Number(row.seq), damaged: decoded } : decoded;
    });
  }

  private async rows(id: string, limit?: number): Promise<MessageRow[]> {
    if (limit === undefined) return this.db().query<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? ORDER BY seq`, [id]);
    if (limit <= 0) return [];
    const rows = await this.db().query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT ?`, [id, Math.floor(limit)]);
    return rows.reverse();
  }

  /** From the `turns`-th last user message on (everything when there are fewer turns). */
  async history(id: string, turns: number): Promise<StoredMessage[]> {
    if (turns <= 0) return [];
    const [start] = await this.db().query<{ seq: number }>(
      "SELECT seq FROM messages WHERE session_id = ? AND role = 'user' ORDER BY seq DESC LIMIT 1 OFFSET ?",
      [id, Math.floor(turns) - 1],
    );
    const rows = await this.db().query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND seq >= ? ORDER BY seq`, [id, start ? Number(start.seq) : 0]);
    return rows.map((row) => decodeMessage(row, id));
  }

  /**
   * Commits the messages in one transaction, after the session's last one. A position taken
   * by another writer in between (UNIQUE(session_id, seq)) is retried a few times.
   */
  async append(id: string, messages: Message[]): Promise<void> {
    if (messages.length === 0) return;
    const encoded = messages.map(encodeMessage);
    const title = titleOf(messages.find((m) => m.role === 'user')?.content ?? '');
    for (let attempt = 0; ; attempt++) {
      try {
        const db = this.db() as Omit<Database, 'migrate'> & Pick<OpenDatabase, 'writeSync'>;
        // The embedded driver runs the SQLite statements in one synchronous go; the others await each.
        if (db.writeSync) {
          await db.writeSync((tx) => {
            const steps = appendSqlite(id, encoded, title);
            for (let step = steps.next(); !step.done;) step = steps.next(tx.execute(step.value[0], step.value[1]));
          });
        } else {
          await db.transaction(async (tx) => {
            if (tx.dialect === 'sqlite') {
              const steps = appendSqlite(id, encoded, title);
              for (let step = steps.next(); !step.done;) step = steps.next(await tx.execute(step.value[0], step.value[1]));
              return;
            }
            // PostgreSQL: the session row first: it says whether the session exists, and its row
            // lock makes concurrent appends to one session take turns, so MAX(seq) below sees the
            // previous one's rows.
            const now = new Date().toISOString();
            const updated = await tx.execute(UPDATE_SESSION, [now, encoded.length, encoded.filter((m) => m.role === 'user').length, title, id]);
            if (updated.rowsAffected === 0) throw notFound(id);
            const [top] = await tx.query<{ seq: number | null }>('SELECT MAX(seq) AS seq FROM messages WHERE session_id = ?', [id]);
            let seq = Number(top?.seq ?? 0);
            for (const m of encoded) {
              await tx.execute(
                `INSERT INTO messages (session_id, seq, role, content, tool_calls, tool_call_id, name, is_error, extra, created_at)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
                [id, ++seq, m.role, m.content, m.toolCalls, m.toolCallId, m.name, m.isError, m.extra, now],
              );
            }
          });
        }
        return;
      } catch (error) {
        const conflict = isUniqueViolation(error, { sqlite: /messages\.session_id, messages\.seq/, postgres: 'messages_session_seq' });
        const busy = isOryxError(error) && (error.code === 'ORYX_E_SQLITE_BUSY' || error.code === 'ORYX_E_PG_CONFLICT');
        if (!conflict && !busy) throw error;
        if (attempt >= this.appendRetries) {
          if (busy) throw error;
          throw sqliteError('ORYX_E_SQLITE_APPEND_CONFLICT',
            `Appending to session "${id}" conflicted with another writer ${attempt + 1} times; nothing of this append was written`, { cause: error });
        }
        await sleep(Math.random() * 10 * 2 ** attempt);
      }
    }
  }

  /**
   * Deletes a session, its messages and its lease, holding the lease while it does. While a
   * live process runs the session (its lease) this fails at once with
   * ORYX_E_SQLITE_SESSION_BUSY naming that process; with `force` that process is asked to
   * abort its run (it sees the request when it next renews the lease, within leaseMs/3) and
   * the delete waits for the lease (up to lockTimeoutMs). Runs of this process are the
   * caller's to abort first (`kernel.runs.abortSession`).
   */
  async delete(id: string, options: { force?: boolean; signal?: AbortSignal } = {}): Promise<boolean> {
    const release = await this.leases.acquire(id, options.signal, { wait: !!options.force, requestCancel: !!options.force });
    try {
      return await this.db().transaction(async (tx) => {
        await tx.execute('DELETE FROM messages WHERE session_id = ?', [id]);
        await tx.execute('DELETE FROM session_leases WHERE session_id = ?', [id]);
        const r = await tx.execute('DELETE FROM sessions WHERE id = ?', [id]);
        return r.rowsAffected > 0;
      });
    } finally {
      await release();
    }
  }

  /**
   * Moves the messages of a session that cannot be read (ORYX_E_SQLITE_CORRUPT_ROW) to the
   * `messages_quarantine` table, byte for byte with the reason, so the session can be shown
   * and run again. Nothing is deleted. Holds the session's lease while it works.
   */
  async repair(id: string, signal?: AbortSignal): Promise<{ quarantined: { seq: number; reason: string }[]; kept: number }> {
    const release = await this.lock(id, signal);
    try {
      return await this.db().transaction(async (tx) => {
        const rows = await tx.query<MessageRow & { id: number }>(`SELECT id, ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? ORDER BY seq`, [id]);
        const now = new Date().toISOString();
        const quarantined: { seq: number; reason: string }[] = [];
        for (const row of rows) {
          const decoded = tryDecodeMessage(row, id);
          if (!isOryxError(decoded)) continue;
          // Copied in SQL, so the bytes are kept exactly as they were, whatever they are.
          await tx.execute(
            `INSERT INTO messages_quarantine (message_id, session_id, seq, role, content, tool_calls, tool_call_id, name, is_error, extra, created_at, reason, quarantined_at)
             SELECT id, session_id, seq, role, content, tool_calls, tool_call_id, name, is_error, extra, created_at, ?, ? FROM messages WHERE id = ?`,
            [decoded.message, now, row.id],
          );
          await tx.execute('DELETE FROM messages WHERE id = ?', [row.id]);
          quarantined.push({ seq: Number(row.seq), reason: decoded.message });
        }
        if (quarantined.length) {
          await tx.execute('UPDATE sessions SET message_count = (SELECT COUNT(*) FROM messages WHERE session_id = ?) WHERE id = ?', [id, id]);
        }
        return { quarantined, kept: rows.length - quarantined.length };
      });
    } finally {
      await release();
    }
  }

  /** Exclusive across processes (a lease row); honours the signal while it waits. */
  lock(id: string, signal?: AbortSignal): Promise<() => Promise<void>> {
    return this.leases.acquire(id, signal);
  }

  /** Up to `limit` sessions whose id starts with `prefix`, by id (the CLI's short ids). */
  async withPrefix(prefix: string, limit: number): Promise<SessionInfo[]> {
    const rows = await this.db().query<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE id >= ? AND id < ? ORDER BY id LIMIT ?`, [prefix, `${prefix}\uffff`, limit]);
    return rows.map(toInfo);
  }

  /** Releases the leases this process still holds. */
  async close(): Promise<void> {
    await this.leases.releaseAll();
  }
}

/**
 * The store a store plugin provides to `kernel`: its log lines named after the plugin, and a
 * request from another process to stop a run here (`delete --force`) aborting this kernel's runs
 * on that session.
 *
 * @example
 * kernel.provide('sessions', storeForKernel(kernel, () => db, { leaseMs: 30_000 }, 'postgres'));
 */
export function storeForKernel(
  kernel: { log: Logger; runs: { abortSession(id: string, reason?: unknown): Promise<number> } },
  db: () => Omit<Database, 'migrate'>,
  options: Pick<SqliteSessionStoreOptions, 'leaseMs' | 'lockTimeoutMs' | 'appendRetries'>,
  name: string,
): SqliteSessionStore {
  return new SqliteSessionStore(db, {
    leaseMs: options.leaseMs, lockTimeoutMs: options.lockTimeoutMs, appendRetries: options.appendRetries, log: kernel.log, name,
    onCancelRequested(sessionId, by) {
      kernel.log.warn(`${name}: ${by} is deleting session ${sessionId}; aborting its run in this process`);
      void kernel.runs.abortSession(sessionId, 'session-deleted');
    },
  });
}

/** The first 80 characters, never half of a surrogate pair. */
function titleOf(content: string): string {
  const title = content.slice(0, 80);
  return /[\uD800-\uDBFF]$/.test(title) ? title.slice(0, -1) : title;
}

function toInfo(row: SessionRow): SessionInfo {
  return {
    id: row.id, agent: row.agent, title: typeof row.title === 'string' ? row.title : '(unreadable title)', createdAt: row.created_at, updatedAt: row.updated_at, messageCount: Number(row.message_count),
    turns: Number(row.turns ?? 0),
    ...(row.parent_session_id ? { parentSessionId: row.parent_session_id } : {}),
    ...(row.external_door && row.external_id ? { external: { door: row.external_door, id: row.external_id } } : {}),
    ...(row.tags ? { tags: JSON.parse(row.tags) as string[] } : {}),
  };
}

function encodeCursor(updatedAt: string, id: string): string {
  return Buffer.from(JSON.stringify([updatedAt, id])).toString('base64url');
}

function decodeCursor(cursor: string): [string, string] {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'string') return [value[0], value[1]];
  } catch { /* fall through */ }
  throw sqliteError('ORYX_E_SQLITE_BAD_CURSOR', `The cursor ${JSON.stringify(cursor.length > 60 ? `${cursor.slice(0, 60)}…` : cursor)} is not one this store returned`, {
    data: { field: 'cursor' },
  });
}

/**
 * A unique violation of one key, as either database service reports it: SQLite names the
 * columns in the message, PostgreSQL (SQLSTATE 23505) names the constraint in `data`.
 */
function isUniqueViolation(error: unknown, key: { sqlite: RegExp; postgres: string }): boolean {
  if (!isOryxError(error)) return false;
  if (error.code === 'ORYX_E_PG_QUERY') return error.data?.pgCode === '23505' && error.data?.constraint === key.postgres;
  if (error.code !== 'ORYX_E_SQLITE_QUERY') return false;
  return String(error.data?.sqliteCode ?? '').startsWith('SQLITE_CONSTRAINT') && /UNIQUE constraint failed/.test(error.message) && key.sqlite.test(error.message);
}
