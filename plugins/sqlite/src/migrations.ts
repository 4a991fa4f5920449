import type { Database, DatabaseTx, Migration } from '@oryxos/contracts';
import { errorMessage, isOryxError } from '@oryxos/provider-spec';
import { sqliteError } from './errors.ts';

export type { Migration };

/** The owner name this plugin's own migrations are recorded under. */
export const OWNER = 'sqlite';

/**
 * The schema, in order. Sessions store one row per message (appending costs the same at
 * message 5 and 5,000).
 *
 * Versions 2, 3 and 5 created tables other plugins own (audit, scheduler, notify), and version
 * 4 rewrote some of their columns. Each plugin now creates and upgrades its own tables through
 * `database.migrate(owner, …)`, only when it is enabled; those steps live there. The versions
 * stay, empty here, so every database keeps one history: one that applied them is unchanged,
 * and the owners' first migrations take over whatever those tables already hold.
 */
export const MIGRATIONS: readonly Migration[] = Object.freeze([
  {
    version: 1,
    name: 'sessions',
    statements: [
      `CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        title TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        message_count INTEGER NOT NULL DEFAULT 0,
        metadata TEXT
      )`,
      'CREATE INDEX sessions_by_updated ON sessions (updated_at DESC, id DESC)',
      'CREATE INDEX sessions_by_agent ON sessions (agent, updated_at DESC, id DESC)',
      `CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        tool_calls TEXT,
        tool_call_id TEXT,
        name TEXT,
        is_error INTEGER,
        extra TEXT,
        created_at TEXT NOT NULL,
        UNIQUE (session_id, seq)
      )`,
      // history(): the N-th last user message of a session in N index steps
      "CREATE INDEX messages_user_turns ON messages (session_id, seq) WHERE role = 'user'",
      `CREATE TABLE session_leases (
        session_id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        acquired_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      )`,
    ],
  },
  // llm_calls and tool_invocations: the audit plugin's migration 1.
  { version: 2, name: 'audit', statements: [] },
  // scheduled_tasks, task_executions, notify_channels: the scheduler's and the notify plugin's migration 1.
  { version: 3, name: 'scheduler-and-notify', statements: [] },
  {
    version: 4,
    name: 'exact-text-and-quarantine',
    statements: [
      // Strings TEXT cannot hold exactly are now stored as tagged BLOBs (see sql-values.ts).
      // Older rows kept a NUL's bytes but every read stopped at it: rewrite those, so the text
      // after the NUL reads back again. Only columns of user, model or tool content (the other
      // plugins' columns: in their own first migration).
      ...[
        ['messages', 'content'], ['messages', 'tool_call_id'], ['messages', 'name'], ['sessions', 'title'],
      ].map(([table, column]) => `UPDATE ${table} SET ${column} = CAST('oryx:s:' || json_quote(${column}) AS BLOB)
        WHERE typeof(${column}) = 'text' AND instr(CAST(${column} AS BLOB), x'00') > 0`),
      // Messages `oryx sessions repair` took out of a session because they could not be read:
      // kept byte for byte, never deleted.
      `CREATE TABLE messages_quarantine (
        id INTEGER PRIMARY KEY,
        message_id INTEGER,
        session_id TEXT,
        seq INTEGER,
        role,
        content,
        tool_calls,
        tool_call_id,
        name,
        is_error,
        extra,
        created_at,
        reason TEXT NOT NULL,
        quarantined_at TEXT NOT NULL
      )`,
      'CREATE INDEX messages_quarantine_by_session ON messages_quarantine (session_id, seq)',
      // Who asked the lease holder to stop its run (`oryx sessions delete --force`).
      'ALTER TABLE session_leases ADD COLUMN cancel_requested_by TEXT',
    ],
  },
  // sandbox_events: the audit plugin's migration 1.
  { version: 5, name: 'sandbox-events', statements: [] },
  {
    version: 6,
    name: 'session-parents',
    statements: [
      // The session of the run that started this one as a sub-agent. No foreign key: a child
      // session outlives a deleted parent (its id stays, as a record of where it came from).
      'ALTER TABLE sessions ADD COLUMN parent_session_id TEXT',
      'CREATE INDEX sessions_by_parent ON sessions (parent_session_id, updated_at DESC, id DESC) WHERE parent_session_id IS NOT NULL',
    ],
  },
  {
    version: 7,
    name: 'turns-doors-tags-call-starts',
    statements: [
      // User turns, kept on append (the history window moves by turns); counted for old rows.
      'ALTER TABLE sessions ADD COLUMN turns INTEGER NOT NULL DEFAULT 0',
      "UPDATE sessions SET turns = (SELECT COUNT(*) FROM messages m WHERE m.session_id = sessions.id AND m.role = 'user')",
      // The door and outside id a session was opened for (a chat, a mail thread): one session each.
      'ALTER TABLE sessions ADD COLUMN external_door TEXT',
      'ALTER TABLE sessions ADD COLUMN external_id TEXT',
      'CREATE UNIQUE INDEX sessions_by_external ON sessions (external_door, external_id, agent) WHERE external_door IS NOT NULL',
      'ALTER TABLE sessions ADD COLUMN tags TEXT',
      // A tool call about to run, committed before it does: after a crash it is never run twice.
      `CREATE TABLE call_starts (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        tool_call_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        args_hash TEXT NOT NULL,
        started_at TEXT NOT NULL,
        PRIMARY KEY (session_id, tool_call_id)
      )`,
    ],
  },
]);

/** The newest schema version this code knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/**
 * The schema version recorded in the database for `owner` (0 for none yet). Reads only. A
 * `schema_migrations` table from before owners existed holds only this plugin's versions.
 *
 * @example
 * if (await schemaVersion(db) < SCHEMA_VERSION) await migrate(db);
 */
export async function schemaVersion(db: Pick<Database, 'query'>, owner = OWNER): Promise<number> {
  const columns = await db.query<{ name: string }>("SELECT name FROM pragma_table_info('schema_migrations')");
  if (columns.length === 0) return 0;
  if (!columns.some((c) => c.name === 'owner')) {
    if (owner !== OWNER) return 0;
    const [row] = await db.query<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_migrations');
    return Number(row?.v ?? 0);
  }
  const [row] = await db.query<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_migrations WHERE owner = ?', [owner]);
  return Number(row?.v ?? 0);
}

/**
 * The versions recorded per owner (a table from before owners existed holds this plugin's). Reads only.
 *
 * @example
 * await recordedVersions(db); // { sqlite: 5, audit: 1 }
 */
export async function recordedVersions(db: Pick<Database, 'query'>): Promise<Record<string, number>> {
  const columns = await db.query<{ name: string }>("SELECT name FROM pragma_table_info('schema_migrations')");
  if (columns.length === 0) return {};
  if (!columns.some((c) => c.name === 'owner')) return { [OWNER]: await schemaVersion(db) };
  const rows = await db.query<{ owner: string; v: number }>('SELECT owner, MAX(version) AS v FROM schema_migrations GROUP BY owner');
  return Object.fromEntries(rows.map((r) => [r.owner, Number(r.v)]));
}

/**
 * Creates `schema_migrations` keyed by (owner, version), or upgrades the one-owner table of
 * earlier versions in place (its rows are this plugin's).
 */
async function ensureMigrationsTable(tx: DatabaseTx): Promise<void> {
  const columns = await tx.query<{ name: string }>("SELECT name FROM pragma_table_info('schema_migrations')");
  if (columns.some((c) => c.name === 'owner')) return;
  await tx.execute(`CREATE TABLE schema_migrations_v2 (
    owner TEXT NOT NULL,
    version INTEGER NOT NULL,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL,
    PRIMARY KEY (owner, version)
  )`);
  if (columns.length) {
    await tx.execute(`INSERT INTO schema_migrations_v2 (owner, version, name, applied_at) SELECT ?, version, name, applied_at FROM schema_migrations`, [OWNER]);
    await tx.execute('DROP TABLE schema_migrations');
  }
  await tx.execute('ALTER TABLE schema_migrations_v2 RENAME TO schema_migrations');
}

/** A migration's statements for SQLite. */
function statementsOf(m: Migration): readonly string[] {
  return Array.isArray(m.statements) ? m.statements : (m.statements as Partial<Record<string, readonly string[]>>).sqlite ?? [];
}

/**
 * Refuses a database written by a newer version of this plugin, before anything writes to it.
 *
 * @example
 * assertKnownVersion(await schemaVersion(db), db.url); // throws ORYX_E_SQLITE_SCHEMA_NEWER
 */
export function assertKnownVersion(found: number, url: string, known = SCHEMA_VERSION, owner = OWNER): void {
  if (found > known) {
    const who = owner === OWNER ? '@oryxos/plugin-sqlite' : `the ${owner} plugin`;
    throw sqliteError('ORYX_E_SQLITE_SCHEMA_NEWER',
      `The database ${url} has ${owner === OWNER ? '' : `${owner} `}schema version ${found}, newer than the ${known} this ${who} knows; it was left untouched`, {
        data: { found, known, owner },
      });
  }
}

/**
 * Applies `owner`'s pending migrations in one write transaction (two processes starting at
 * once take turns; the second finds nothing to do). Returns the versions applied.
 *
 * @example
 * const db = await openDatabase({ kind: 'file', path: 'x.db' }, { driver: 'libsql', busyTimeoutMs: 5000 });
 * await enableWal(db);
 * await migrate(db); // [1, 2, 3] the first time, [] after
 * await migrate(db, AUDIT_MIGRATIONS, 'audit');
 */
export async function migrate(db: Omit<Database, 'migrate'>, migrations: readonly Migration[] = MIGRATIONS, owner = OWNER): Promise<number[]> {
  const known = migrations.length ? migrations[migrations.length - 1]!.version : 0;
  try {
    return await db.transaction(async (tx) => {
      await ensureMigrationsTable(tx);
      const current = await schemaVersion(tx, owner);
      assertKnownVersion(current, db.url, known, owner);
      const applied: number[] = [];
      for (const m of migrations) {
        if (m.version <= current) continue;
        for (const sql of statementsOf(m)) await tx.execute(sql);
        await tx.execute('INSERT INTO schema_migrations (owner, version, name, applied_at) VALUES (?, ?, ?, ?)', [owner, m.version, m.name, new Date().toISOString()]);
        applied.push(m.version);
      }
      return applied;
    });
  } catch (error) {
    if (isOryxError(error) && error.code === 'ORYX_E_SQLITE_SCHEMA_NEWER') throw error;
    throw sqliteError('ORYX_E_SQLITE_MIGRATION', `Migrating ${owner === OWNER ? '' : `the ${owner} tables of `}${db.url} failed and was rolled back: ${errorMessage(error)}`, { cause: error });
  }
}
