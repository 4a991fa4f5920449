import type {
  CallStart, DamagedMessage, DatabaseTx, ExternalRef, Page, SessionInfo, SessionRepair, SessionStore, SqlValue, StoredMessage,
} from '@oryxos/contracts';
import { errorMessage, isOryxError, type Message } from '@oryxos/provider-spec';
import { MESSAGE_COUNT, appendMessages } from './append.ts';
import { MESSAGE_COLUMNS, decodeMessage, tryDecodeMessage, type MessageRow } from './codec.ts';
import { storeError } from './errors.ts';
import { SessionLeases } from './leases.ts';
import { isUniqueViolation } from './sql.ts';
import type { StoreDatabase } from './store-database.ts';

/** Where the store writes what a person should know (the kernel's logger fits). */
export interface StoreLog {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
}

interface SessionRow {
  id: string;
  agent: string;
  title: unknown;
  created_at: string;
  updated_at: string;
  message_count: number;
  turns: number;
  parent_session_id: string | null;
  external_door: string | null;
  external_id: string | null;
  tags: unknown;
}

const SESSION_COLUMNS = `id, agent, title, created_at, updated_at, ${MESSAGE_COUNT} AS message_count, turns, parent_session_id, external_door, external_id, tags`;

const INSERT_SESSION = `INSERT INTO sessions (id, agent, title, created_at, updated_at, message_count, turns, parent_session_id, external_door, external_id, tags)
  VALUES (?, ?, ?, ?, ?, 0, 0, ?, ?, ?, ?)`;

/** A call mark, upserted: a provider that reuses call ids (`call_0`) marks the same id again in a later run. */
const MARK = `INSERT INTO call_marks (session_id, tool_call_id, run_id, tool, args_hash, started_at, after_seq)
  SELECT ?, ?, ?, ?, ?, ?, COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ?
  ON CONFLICT (session_id, tool_call_id) DO UPDATE SET run_id = excluded.run_id, tool = excluded.tool, args_hash = excluded.args_hash,
    started_at = excluded.started_at, after_seq = excluded.after_seq`;

/** Marks whose call has no tool result after the position the mark was taken at. */
const ANSWERED = `EXISTS (SELECT 1 FROM messages r WHERE r.session_id = call_marks.session_id AND r.seq > call_marks.after_seq AND r.role = 'tool' AND r.tool_call_id = call_marks.tool_call_id)`;

/** A session's marks whose calls have their results: they say nothing any more. */
const SETTLE_MARKS = `DELETE FROM call_marks WHERE session_id = ? AND ${ANSWERED}`;

const UNANSWERED = `SELECT m.session_id, m.tool_call_id, m.run_id, m.tool, m.args_hash, m.started_at FROM call_marks m
  WHERE NOT EXISTS (SELECT 1 FROM messages r WHERE r.session_id = m.session_id AND r.seq > m.after_seq AND r.role = 'tool' AND r.tool_call_id = m.tool_call_id)`;

export interface SqlSessionStoreOptions {
  leaseMs?: number;
  lockTimeoutMs?: number;
  appendRetries?: number;
  log?: StoreLog;
  /** The plugin that runs the store, for its log lines. Default `store`. */
  name?: string;
  /** A write that may commit with the next transaction (the `database` service's `defer`): {@link SqlSessionStore.settleMarks} uses it. */
  writeLater?(sql: string, params: SqlValue[], onError: (error: unknown) => void): void;
  /**
   * Called when another process asks to stop this process's run on a session (it is deleting
   * it with `force`); the plugin aborts the session's runs here.
   */
  onCancelRequested?(sessionId: string, by: string): void;
}

/**
 * The durable session store (`kernel.service('sessions')`) on any SQL database the store kit
 * drives (SQLite, PostgreSQL): one row per message keyed by `(session_id, seq)`, each `append`
 * its own transaction, positions assigned inside it; a lease row serializes runs on a session
 * across processes; a call mark is committed before a tool runs, so a crash between its effect
 * and its result is seen afterwards.
 *
 * @example
 * const store = new SqlSessionStore(() => db);
 * const s = await store.findOrCreate({ agent: 'assistant', external: { door: 'telegram', id: '42' } });
 * await store.append(s.id, [{ role: 'user', content: 'hi' }]);
 * const last = await store.history(s.id, 20);
 */
export class SqlSessionStore implements SessionStore {
  private readonly leases: SessionLeases;
  private readonly appendRetries: number;
  private readonly log: StoreLog;
  private readonly writeLater: SqlSessionStoreOptions['writeLater'];

  /** `db` is a getter: a plugin provides the store in setup and opens the database later. */
  constructor(private readonly db: () => StoreDatabase, options: SqlSessionStoreOptions = {}) {
    const log = this.log = options.log ?? { debug() {}, info() {}, warn() {} };
    this.writeLater = options.writeLater;
    this.appendRetries = options.appendRetries ?? 5;
    this.leases = new SessionLeases(db, {
      leaseMs: options.leaseMs ?? 30_000, lockTimeoutMs: options.lockTimeoutMs ?? 120_000, onCancelRequested: options.onCancelRequested,
      name: options.name ?? 'store',
    }, log);
  }

  async create(input: { agent: string; title?: string; id?: string; parentSessionId?: string; external?: ExternalRef; tags?: string[] }): Promise<SessionInfo> {
    const info = newSession(input);
    try {
      await this.insert(this.db(), info);
    } catch (error) {
      if (isUniqueViolation(error, 'sessions_pkey', /sessions\.id/)) {
        throw storeError('ORYX_E_SQLITE_SESSION_EXISTS', `A session with id "${info.id}" already exists`, { cause: error });
      }
      if (info.external && isUniqueViolation(error, 'sessions_by_external', /sessions\.external_door, sessions\.external_id/)) {
        throw storeError('ORYX_E_SQLITE_SESSION_EXISTS', `A session for ${describe(info.external)} already exists`, {
          cause: error, hint: 'Use findOrCreate({ agent, external }) to get it.', data: { external: info.external },
        });
      }
      throw error;
    }
    return info;
  }

  /**
   * The session of a door's outside conversation, created for `agent` when there is none: the
   * insert does nothing when another caller (another process) created it first, and both read
   * the one row the unique `(external_door, external_id)` index allows.
   */
  async findOrCreate(input: { agent: string; external: ExternalRef; title?: string }): Promise<SessionInfo> {
    const found = await this.byExternal(input.external);
    if (found) return found;
    const info = newSession(input);
    await this.db().transaction(async (tx) => {
      const inserted = await tx.execute(`${INSERT_SESSION} ON CONFLICT DO NOTHING`, sessionParams(info));
      if (inserted.rowsAffected > 0) await this.insertTags(tx, info);
    });
    const stored = await this.byExternal(input.external);
    if (!stored) throw storeError('ORYX_E_SQLITE_SESSION_NOT_FOUND', `The session for ${describe(input.external)} was deleted while it was being opened`);
    return stored;
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
    if (query.parentSessionId) { where.push('parent_session_id = ?'); params.push(query.parentSessionId); }
    if (query.tag) { where.push('id IN (SELECT session_id FROM session_tags WHERE tag = ?)'); params.push(query.tag); }
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
   * Commits the messages in one transaction, after the session's last one (see append.ts). A
   * position taken by another writer in between (the `(session_id, seq)` key) is retried a few times.
   */
  append(id: string, messages: Message[]): Promise<void> {
    return appendMessages(this.db(), id, messages, this.appendRetries);
  }

  /**
   * Deletes a session with everything that is its: its messages, call marks, tags, run records
   * and lease, and its sub-agents' sessions (to any depth), holding its lease while it does.
   * While a live process runs the session (its lease) this fails at once with
   * ORYX_E_SQLITE_SESSION_BUSY naming that process; with `force` that process is asked to abort
   * its run (it sees the request when it next renews the lease, within leaseMs/3) and the delete
   * waits for the lease (up to lockTimeoutMs). Runs of this process are the caller's to abort first.
   */
  async delete(id: string, options: { force?: boolean; signal?: AbortSignal } = {}): Promise<boolean> {
    const release = await this.leases.acquire(id, options.signal, { wait: !!options.force, requestCancel: !!options.force });
    try {
      return await this.db().transaction(async (tx) => {
        const doomed = [id];
        for (let i = 0; i < doomed.length; i++) {
          const children = await tx.query<{ id: string }>('SELECT id FROM sessions WHERE parent_session_id = ?', [doomed[i]!]);
          for (const child of children) if (!doomed.includes(child.id)) doomed.push(child.id);
        }
        let deleted = false;
        for (const session of doomed.reverse()) {
          for (const table of ['messages', 'call_marks', 'session_tags', 'runs']) await tx.execute(`DELETE FROM ${table} WHERE session_id = ?`, [session]);
          // This delete's own lease goes with its release; a child's stale lease row goes now.
          if (session !== id) await tx.execute('DELETE FROM session_leases WHERE session_id = ?', [session]);
          const r = await tx.execute('DELETE FROM sessions WHERE id = ?', [session]);
          if (session === id) deleted = r.rowsAffected > 0;
        }
        return deleted;
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
  async repair(id: string, signal?: AbortSignal): Promise<SessionRepair> {
    const release = await this.lock(id, signal);
    try {
      return await this.db().transaction(async (tx) => {
        const rows = await tx.query<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? ORDER BY seq`, [id]);
        const now = new Date().toISOString();
        const quarantined: { seq: number; reason: string }[] = [];
        for (const row of rows) {
          const decoded = tryDecodeMessage(row, id);
          if (!isOryxError(decoded)) continue;
          // Copied in SQL, so the bytes are kept exactly as they were, whatever they are.
          await tx.execute(
            `INSERT INTO messages_quarantine (session_id, seq, role, content, tool_calls, tool_call_id, name, is_error, extra, created_at, reason, quarantined_at)
             SELECT session_id, seq, role, content, tool_calls, tool_call_id, name, is_error, extra, created_at, ?, ? FROM messages WHERE session_id = ? AND seq = ?`,
            [decoded.message, now, id, Number(row.seq)],
          );
          await tx.execute('DELETE FROM messages WHERE session_id = ? AND seq = ?', [id, Number(row.seq)]);
          quarantined.push({ seq: Number(row.seq), reason: decoded.message });
        }
        if (quarantined.length) {
          await tx.execute(`UPDATE sessions SET message_count = (SELECT COUNT(*) FROM messages WHERE session_id = ?),
            counted_seq = COALESCE((SELECT MAX(seq) FROM messages WHERE session_id = ?), 0),
            turns = (SELECT COUNT(*) FROM messages WHERE session_id = ? AND role = 'user') WHERE id = ?`, [id, id, id, id]);
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

  /**
   * Deletes the session's answered call marks (a store plugin calls it when a run ends). A result
   * answers its mark by being there (see {@link startedWithoutResult}), so marks are cleared once
   * a run instead of in each result's commit: one statement and one page fewer per tool call.
   * With `writeLater` the delete commits with the next write. A failure is a warning: the marks
   * stay answered, and the next run's end clears them.
   */
  async settleMarks(sessionId: string): Promise<void> {
    const warn = (error: unknown) => this.log.warn(`the answered call marks of session ${sessionId} were not cleared: ${errorMessage(error)}`);
    if (this.writeLater) this.writeLater(SETTLE_MARKS, [sessionId], warn);
    else await this.db().execute(SETTLE_MARKS, [sessionId]).catch(warn);
  }

  /** Up to `limit` sessions whose id starts with `prefix`, by id (the CLI's short ids). */
  async withPrefix(prefix: string, limit: number): Promise<SessionInfo[]> {
    const rows = await this.db().query<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE id >= ? AND id < ? ORDER BY id LIMIT ?`, [prefix, `${prefix}\uffff`, limit]);
    return rows.map(toInfo);
  }

  /**
   * Commits the mark of a call about to run, with the session's last position: a tool result
   * for the call after that position answers it (an earlier one, of a reused call id, does not).
   */
  async markStarted(mark: CallStart): Promise<void> {
    for (const [field, value] of Object.entries({ runId: mark.runId, sessionId: mark.sessionId, toolCallId: mark.toolCallId, tool: mark.tool, argsHash: mark.argsHash, startedAt: mark.startedAt })) {
      if (typeof value !== 'string' || !value) throw storeError('ORYX_E_STORE_INVALID', `A call mark needs ${field} (a non-empty string), got ${JSON.stringify(value)}`, { data: { field } });
    }
    await this.db().execute(MARK, [mark.sessionId, mark.toolCallId, mark.runId, mark.tool, mark.argsHash, mark.startedAt, mark.sessionId]);
  }

  async startedWithoutResult(sessionId?: string): Promise<CallStart[]> {
    const rows = await this.db().query<{ session_id: string; tool_call_id: string; run_id: string; tool: string; args_hash: string; started_at: string }>(
      sessionId === undefined
        ? `${UNANSWERED} AND NOT EXISTS (SELECT 1 FROM runs g WHERE g.id = m.run_id AND g.stop_reason = 'running') ORDER BY m.started_at, m.session_id, m.tool_call_id`
        : `${UNANSWERED} AND m.session_id = ? ORDER BY m.started_at, m.tool_call_id`,
      sessionId === undefined ? [] : [sessionId],
    );
    return rows.map((r) => ({ runId: r.run_id, sessionId: r.session_id, toolCallId: r.tool_call_id, tool: r.tool, argsHash: r.args_hash, startedAt: r.started_at }));
  }

  /** Releases the leases this process still holds. */
  async close(): Promise<void> {
    await this.leases.releaseAll();
  }

  private async insert(db: StoreDatabase, info: SessionInfo): Promise<void> {
    if (!info.tags?.length) {
      await db.execute(INSERT_SESSION, sessionParams(info));
      return;
    }
    await db.transaction(async (tx) => {
      await tx.execute(INSERT_SESSION, sessionParams(info));
      await this.insertTags(tx, info);
    });
  }

  private async insertTags(tx: DatabaseTx, info: SessionInfo): Promise<void> {
    for (const tag of info.tags ?? []) await tx.execute('INSERT INTO session_tags (tag, session_id) VALUES (?, ?)', [tag, info.id]);
  }

  private async byExternal(external: ExternalRef): Promise<SessionInfo | undefined> {
    const [row] = await this.db().query<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE external_door = ? AND external_id = ?`, [external.door, external.id]);
    return row && toInfo(row);
  }
}

/** A new session's info, its input checked (a tag or an outside id that is not a short string is refused). */
function newSession(input: { agent: string; title?: string; id?: string; parentSessionId?: string; external?: ExternalRef; tags?: string[] }): SessionInfo {
  if (input.external) {
    checkText(input.external.door, 'external.door');
    checkText(input.external.id, 'external.id');
  }
  const tags = input.tags === undefined ? undefined : [...new Set(input.tags)];
  if (tags !== undefined && !Array.isArray(input.tags)) throw storeError('ORYX_E_STORE_INVALID', 'tags must be a list of strings', { data: { field: 'tags' } });
  for (const tag of tags ?? []) checkText(tag, 'tags');
  const now = new Date().toISOString();
  return {
    // The global Web Crypto: node:crypto loads with the first id, not with the plugin.
    id: input.id ?? crypto.randomUUID(), agent: input.agent, title: input.title ?? '', createdAt: now, updatedAt: now, messageCount: 0, turns: 0,
    ...(input.parentSessionId ? { parentSessionId: input.parentSessionId } : {}),
    ...(input.external ? { external: { door: input.external.door, id: input.external.id } } : {}),
    ...(tags?.length ? { tags } : {}),
  };
}

function sessionParams(info: SessionInfo): SqlValue[] {
  return [info.id, info.agent, info.title, info.createdAt, info.updatedAt, info.parentSessionId ?? null,
    info.external?.door ?? null, info.external?.id ?? null, info.tags?.length ? JSON.stringify(info.tags) : null];
}

function checkText(value: unknown, field: string): void {
  if (typeof value !== 'string' || value.length === 0 || value.length > 200) {
    throw storeError('ORYX_E_STORE_INVALID', `${field} must be a non-empty string of at most 200 characters, got ${JSON.stringify(value)?.slice(0, 80)}`, { data: { field } });
  }
}

function describe(external: ExternalRef): string {
  return `${external.door} conversation ${JSON.stringify(external.id)}`;
}

function toInfo(row: SessionRow): SessionInfo {
  return {
    id: row.id, agent: row.agent, title: typeof row.title === 'string' ? row.title : '(unreadable title)', createdAt: row.created_at, updatedAt: row.updated_at,
    messageCount: Number(row.message_count), turns: Number(row.turns),
    ...(row.parent_session_id ? { parentSessionId: row.parent_session_id } : {}),
    ...(row.external_door && row.external_id ? { external: { door: row.external_door, id: row.external_id } } : {}),
    ...tagsOf(row.tags),
  };
}

/** The tags column (a JSON list); a value that is not one (a hand edit) reads as no tags. */
function tagsOf(value: unknown): { tags?: string[] } {
  if (typeof value !== 'string') return {};
  try {
    const tags: unknown = JSON.parse(value);
    return Array.isArray(tags) && tags.length && tags.every((t) => typeof t === 'string') ? { tags } : {};
  } catch {
    return {};
  }
}

function encodeCursor(updatedAt: string, id: string): string {
  return Buffer.from(JSON.stringify([updatedAt, id])).toString('base64url');
}

function decodeCursor(cursor: string): [string, string] {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'string') return [value[0], value[1]];
  } catch { /* fall through */ }
  throw storeError('ORYX_E_SQLITE_BAD_CURSOR', `The cursor ${JSON.stringify(cursor.length > 60 ? `${cursor.slice(0, 60)}…` : cursor)} is not one this store returned`, {
    data: { field: 'cursor' },
  });
}
