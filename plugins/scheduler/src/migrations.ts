import type { Migration } from '@oryxos/contracts';

/** The owner name the scheduler's migrations are recorded under in `schema_migrations`. */
export const OWNER = 'scheduler';

/**
 * `scheduled_tasks` and `task_executions`: the same in every dialect but the key of executions
 * and, on PostgreSQL, `COLLATE "C"` on names, slots and times, so they sort and compare byte by
 * byte as on SQLite whatever the database's collation (`MAX(slot)`, `ORDER BY slot`).
 */
const TASKS = (key: string) => `CREATE TABLE scheduled_tasks (
  name TEXT${key} PRIMARY KEY,
  agent TEXT NOT NULL,
  message TEXT NOT NULL,
  cron TEXT,
  every_ms BIGINT,
  at_time TEXT,
  timezone TEXT,
  session_mode TEXT NOT NULL DEFAULT 'new',
  session_id TEXT,
  notify TEXT,
  enabled INTEGER NOT NULL DEFAULT 1,
  timeout_ms BIGINT NOT NULL,
  overlap TEXT NOT NULL DEFAULT 'skip',
  catch_up TEXT NOT NULL DEFAULT 'latest',
  source TEXT NOT NULL DEFAULT 'runtime',
  active_since TEXT${key} NOT NULL,
  created_at TEXT${key} NOT NULL,
  updated_at TEXT${key} NOT NULL,
  CHECK ((CASE WHEN cron IS NULL THEN 0 ELSE 1 END) + (CASE WHEN every_ms IS NULL THEN 0 ELSE 1 END) + (CASE WHEN at_time IS NULL THEN 0 ELSE 1 END) = 1)
)`;

const EXECUTIONS = (id: string, key: string) => `CREATE TABLE task_executions (
  id ${id},
  task TEXT${key} NOT NULL,
  slot TEXT${key} NOT NULL,
  status TEXT NOT NULL,
  fired_by TEXT NOT NULL,
  owner TEXT,
  heartbeat_at TEXT${key},
  started_at TEXT${key},
  finished_at TEXT${key},
  duration_ms BIGINT,
  session_id TEXT,
  run_id TEXT,
  stop_reason TEXT,
  answer TEXT,
  error_code TEXT,
  error TEXT,
  iterations INTEGER,
  input_tokens BIGINT,
  output_tokens BIGINT,
  notify_status TEXT,
  notification_id BIGINT,
  UNIQUE (task, slot)
)`;

const INDEXES = [
  // Runs that may still be going: what overlap and recovery look at.
  "CREATE INDEX task_executions_active ON task_executions (task, status) WHERE status IN ('running', 'queued')",
];

/**
 * The tables `@oryxos/plugin-sqlite` created for the scheduler before each plugin owned its
 * tables (its migrations 3 and 4). Created here when missing, so an old database and a new one
 * take the same path: old rows are rewritten into the new tables, nothing is dropped with data.
 */
const LEGACY_SQLITE = [
  `CREATE TABLE IF NOT EXISTS scheduled_tasks (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    agent TEXT NOT NULL,
    message TEXT NOT NULL,
    cron TEXT,
    interval_ms INTEGER,
    timezone TEXT,
    session_id TEXT,
    notify_channel TEXT,
    enabled INTEGER NOT NULL DEFAULT 1,
    next_run_at TEXT,
    last_run_at TEXT,
    lease_owner TEXT,
    lease_expires_at INTEGER,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    CHECK ((cron IS NULL) <> (interval_ms IS NULL))
  )`,
  `CREATE TABLE IF NOT EXISTS task_executions (
    id INTEGER PRIMARY KEY,
    task_id TEXT NOT NULL REFERENCES scheduled_tasks (id) ON DELETE CASCADE,
    scheduled_for TEXT,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL,
    owner TEXT,
    session_id TEXT,
    run_id TEXT,
    answer TEXT,
    error TEXT,
    iterations INTEGER,
    input_tokens INTEGER,
    output_tokens INTEGER,
    duration_ms INTEGER
  )`,
  // What sqlite's migration 4 did to these columns: text with a NUL becomes a tagged BLOB.
  ...[['scheduled_tasks', 'message'], ['task_executions', 'answer'], ['task_executions', 'error']].map(([table, column]) =>
    `UPDATE ${table} SET ${column} = CAST('oryx:s:' || json_quote(${column}) AS BLOB)
      WHERE typeof(${column}) = 'text' AND instr(CAST(${column} AS BLOB), x'00') > 0`),
  'ALTER TABLE task_executions RENAME TO task_executions_v0',
  'ALTER TABLE scheduled_tasks RENAME TO scheduled_tasks_v0',
];

const FROM_LEGACY_SQLITE = [
  `INSERT INTO scheduled_tasks (name, agent, message, cron, every_ms, timezone, session_mode, session_id, notify, enabled, timeout_ms,
     overlap, catch_up, source, active_since, created_at, updated_at)
   SELECT name, agent, message, cron, interval_ms, CASE WHEN cron IS NULL THEN NULL ELSE timezone END,
     CASE WHEN session_id IS NULL THEN 'new' ELSE 'task' END, session_id, notify_channel, enabled, 600000,
     'skip', 'latest', 'runtime', COALESCE(last_run_at, updated_at), created_at, updated_at
   FROM scheduled_tasks_v0`,
  // A slot is unique per task; old rows that share one keep theirs apart with their id.
  `INSERT INTO task_executions (task, slot, status, fired_by, owner, started_at, finished_at, duration_ms, session_id, run_id, answer,
     error, iterations, input_tokens, output_tokens)
   SELECT COALESCE(t.name, e.task_id),
     COALESCE(e.scheduled_for, e.started_at) || CASE WHEN e.id = (SELECT MIN(d.id) FROM task_executions_v0 d WHERE d.task_id = e.task_id
       AND COALESCE(d.scheduled_for, d.started_at) = COALESCE(e.scheduled_for, e.started_at)) THEN '' ELSE '#' || e.id END,
     e.status, 'schedule', e.owner, e.started_at, e.finished_at, e.duration_ms, e.session_id, e.run_id, e.answer,
     e.error, e.iterations, e.input_tokens, e.output_tokens
   FROM task_executions_v0 e LEFT JOIN scheduled_tasks_v0 t ON t.id = e.task_id ORDER BY e.id`,
  'DROP TABLE task_executions_v0',
  'DROP TABLE scheduled_tasks_v0',
];

/**
 * The scheduler's schema. Times are ISO 8601 UTC text with milliseconds (they sort as they
 * compare); a slot is the scheduled time of a run, unique per task: the claim that makes each
 * slot run once, in any number of processes.
 */
export const MIGRATIONS: readonly Migration[] = Object.freeze([
  {
    version: 1,
    name: 'tasks-and-executions',
    statements: {
      sqlite: [...LEGACY_SQLITE, TASKS(''), EXECUTIONS('INTEGER PRIMARY KEY', ''), ...INDEXES, ...FROM_LEGACY_SQLITE],
      postgres: [TASKS(' COLLATE "C"'), EXECUTIONS('BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY', ' COLLATE "C"'), ...INDEXES],
    },
  },
]);
