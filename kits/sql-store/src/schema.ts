import type { Migration } from '@oryxos/contracts';

/*
 * The store's tables — sessions, messages, leases, the quarantine, call marks, tags — as each
 * engine creates them. Each list is recorded under the name of the plugin that drives it (`sqlite`,
 * `postgres`), as it always was, so an existing database keeps one history; the run records have
 * their own owner (`runs`, in run-records.ts). A shipped migration is never edited.
 */

/**
 * The SQLite schema, in order (owner `sqlite`). Sessions store one row per message (appending costs the same at
 * message 5 and 5,000).
 *
 * Versions 2, 3 and 5 created tables other plugins own (audit, scheduler, notify), and version
 * 4 rewrote some of their columns. Each plugin now creates and upgrades its own tables through
 * `database.migrate(owner, …)`, only when it is enabled; those steps live there. The versions
 * stay, empty here, so every database keeps one history: one that applied them is unchanged,
 * and the owners' first migrations take over whatever those tables already hold.
 */
export const SQLITE_STORE_MIGRATIONS: readonly Migration[] = Object.freeze([
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
    name: 'doors-turns-tags-call-marks-messages-by-key',
    statements: [
      // How many user turns a session holds (what the history strategy cuts by), kept by append.
      'ALTER TABLE sessions ADD COLUMN turns INTEGER NOT NULL DEFAULT 0',
      "UPDATE sessions SET turns = (SELECT COUNT(*) FROM messages WHERE messages.session_id = sessions.id AND messages.role = 'user')",
      // The door and outside id a session was opened for: at most one session per outside conversation.
      'ALTER TABLE sessions ADD COLUMN external_door TEXT',
      'ALTER TABLE sessions ADD COLUMN external_id TEXT',
      'CREATE UNIQUE INDEX sessions_by_external ON sessions (external_door, external_id) WHERE external_door IS NOT NULL',
      // Labels set at creation: read with the session (JSON), found through session_tags.
      'ALTER TABLE sessions ADD COLUMN tags TEXT',
      'CREATE TABLE session_tags (tag TEXT NOT NULL, session_id TEXT NOT NULL, PRIMARY KEY (tag, session_id)) WITHOUT ROWID',
      // A tool call about to run, committed before it does; `after_seq`: the session's last position then.
      `CREATE TABLE call_marks (
        session_id TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        args_hash TEXT NOT NULL,
        started_at TEXT NOT NULL,
        after_seq INTEGER NOT NULL,
        PRIMARY KEY (session_id, tool_call_id)
      ) WITHOUT ROWID`,
      // One b-tree keyed by (session_id, seq) instead of a rowid table and its unique index: an
      // append writes one page less. Every row is copied as it is (values, types and bytes).
      `CREATE TABLE messages_by_key (
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
        PRIMARY KEY (session_id, seq)
      ) WITHOUT ROWID`,
      `INSERT INTO messages_by_key (session_id, seq, role, content, tool_calls, tool_call_id, name, is_error, extra, created_at)
        SELECT session_id, seq, role, content, tool_calls, tool_call_id, name, is_error, extra, created_at FROM messages`,
      'DROP TABLE messages',
      'ALTER TABLE messages_by_key RENAME TO messages',
      // history(): the N-th last user message of a session in N index steps
      "CREATE INDEX messages_user_turns ON messages (session_id, seq) WHERE role = 'user'",
    ],
  },
  {
    version: 8,
    name: 'session-counted-seq',
    statements: [
      // The session's messages are message_count + (its last seq - counted_seq): an append that
      // adds no user message to the newest session writes no session row at all (see append.ts).
      'ALTER TABLE sessions ADD COLUMN counted_seq INTEGER NOT NULL DEFAULT 0',
      'UPDATE sessions SET counted_seq = COALESCE((SELECT MAX(seq) FROM messages WHERE messages.session_id = sessions.id), 0)',
    ],
  },
]);

/**
 * The session store's tables on PostgreSQL: the same tables and columns as
 * the SQLite schema's version 8 ({@link SQLITE_STORE_MIGRATIONS}), so `oryx db copy` moves rows between the two.
 * Keys, timestamps and ids compare byte by byte (`COLLATE "C"`) whatever the database's
 * collation, as on SQLite: keyset paging and id-prefix lookups rely on that order.
 */
export const POSTGRES_STORE_MIGRATIONS: readonly Migration[] = Object.freeze([
  {
    version: 1,
    name: 'sessions',
    statements: {
      postgres: [
        `CREATE TABLE sessions (
          id TEXT COLLATE "C" PRIMARY KEY,
          agent TEXT NOT NULL,
          title TEXT NOT NULL DEFAULT '',
          created_at TEXT COLLATE "C" NOT NULL,
          updated_at TEXT COLLATE "C" NOT NULL,
          message_count INTEGER NOT NULL DEFAULT 0,
          metadata TEXT
        )`,
        'CREATE INDEX sessions_by_updated ON sessions (updated_at DESC, id DESC)',
        'CREATE INDEX sessions_by_agent ON sessions (agent, updated_at DESC, id DESC)',
        `CREATE TABLE messages (
          id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
          session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
          seq INTEGER NOT NULL,
          role TEXT NOT NULL,
          content TEXT NOT NULL,
          tool_calls TEXT,
          tool_call_id TEXT,
          name TEXT,
          is_error INTEGER,
          extra TEXT,
          created_at TEXT NOT NULL,
          CONSTRAINT messages_session_seq UNIQUE (session_id, seq)
        )`,
        // history(): the N-th last user message of a session in N index steps
        "CREATE INDEX messages_user_turns ON messages (session_id, seq) WHERE role = 'user'",
        `CREATE TABLE session_leases (
          session_id TEXT COLLATE "C" PRIMARY KEY,
          owner TEXT NOT NULL,
          host TEXT NOT NULL,
          pid INTEGER NOT NULL,
          acquired_at BIGINT NOT NULL,
          expires_at BIGINT NOT NULL,
          cancel_requested_by TEXT
        )`,
        `CREATE TABLE messages_quarantine (
          id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
          message_id BIGINT,
          session_id TEXT COLLATE "C",
          seq INTEGER,
          role TEXT,
          content TEXT,
          tool_calls TEXT,
          tool_call_id TEXT,
          name TEXT,
          is_error INTEGER,
          extra TEXT,
          created_at TEXT,
          reason TEXT NOT NULL,
          quarantined_at TEXT NOT NULL
        )`,
        'CREATE INDEX messages_quarantine_by_session ON messages_quarantine (session_id, seq)',
      ],
    },
  },
  {
    version: 2,
    name: 'session-parents',
    statements: {
      postgres: [
        // As the sqlite plugin's version 6: the session that started this one as a sub-agent.
        'ALTER TABLE sessions ADD COLUMN parent_session_id TEXT COLLATE "C"',
        'CREATE INDEX sessions_by_parent ON sessions (parent_session_id, updated_at DESC, id DESC) WHERE parent_session_id IS NOT NULL',
      ],
    },
  },
  {
    version: 3,
    name: 'doors-turns-tags-call-marks-messages-by-key',
    statements: {
      postgres: [
        // As the sqlite schema's version 7.
        'ALTER TABLE sessions ADD COLUMN turns INTEGER NOT NULL DEFAULT 0',
        "UPDATE sessions SET turns = (SELECT COUNT(*) FROM messages WHERE messages.session_id = sessions.id AND messages.role = 'user')",
        'ALTER TABLE sessions ADD COLUMN external_door TEXT COLLATE "C", ADD COLUMN external_id TEXT COLLATE "C", ADD COLUMN tags TEXT',
        'CREATE UNIQUE INDEX sessions_by_external ON sessions (external_door, external_id) WHERE external_door IS NOT NULL',
        'CREATE TABLE session_tags (tag TEXT COLLATE "C" NOT NULL, session_id TEXT COLLATE "C" NOT NULL, PRIMARY KEY (tag, session_id))',
        `CREATE TABLE call_marks (
          session_id TEXT COLLATE "C" NOT NULL,
          tool_call_id TEXT NOT NULL,
          run_id TEXT NOT NULL,
          tool TEXT NOT NULL,
          args_hash TEXT NOT NULL,
          started_at TEXT COLLATE "C" NOT NULL,
          after_seq INTEGER NOT NULL,
          PRIMARY KEY (session_id, tool_call_id)
        )`,
        // Keyed by (session_id, seq) as on SQLite, so `oryx db copy` moves messages both ways.
        'ALTER TABLE messages DROP COLUMN id',
        'ALTER TABLE messages DROP CONSTRAINT messages_session_seq',
        'ALTER TABLE messages ADD CONSTRAINT messages_session_seq PRIMARY KEY (session_id, seq)',
      ],
    },
  },
  {
    version: 4,
    name: 'session-counted-seq',
    statements: [
      // As on SQLite (its version 8), so `oryx db copy` carries the column both ways; PostgreSQL's
      // append moves message_count and counted_seq together, which keeps the sum right.
      'ALTER TABLE sessions ADD COLUMN counted_seq INTEGER NOT NULL DEFAULT 0',
      'UPDATE sessions SET counted_seq = COALESCE((SELECT MAX(seq) FROM messages WHERE messages.session_id = sessions.id), 0)',
    ],
  },
]);

