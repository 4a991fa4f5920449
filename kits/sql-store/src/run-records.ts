import { hostname } from 'node:os';
import type { Migration, RunContinuation, RunRecord, RunRecordStore, RunStart, SqlValue } from '@oryxos/contracts';
import { processAlive } from '@oryxos/plugin-kit';
import type { StoreDatabase } from './store-database.ts';

/** The owner the `runs` table's migrations are recorded under (the same on SQLite and PostgreSQL). */
export const RUNS_OWNER = 'runs';

const RUNS_V2_COLUMNS = `id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  agent TEXT NOT NULL,
  parent_run_id TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  stop_reason TEXT NOT NULL,
  notice TEXT,
  iterations INTEGER NOT NULL,
  tool_calls INTEGER NOT NULL,
  input_tokens BIGINT NOT NULL,
  output_tokens BIGINT NOT NULL,
  retries INTEGER NOT NULL,
  duration_ms BIGINT NOT NULL,
  error_code TEXT,
  cache_read_tokens BIGINT,
  cache_write_tokens BIGINT,
  cost_usd REAL,
  continuation TEXT,
  host TEXT,
  pid INTEGER`;
const V1_COLUMNS = 'id, session_id, agent, parent_run_id, started_at, finished_at, stop_reason, notice, iterations, tool_calls, input_tokens, output_tokens, retries, duration_ms, error_code';

/**
 * The `runs` table: one row per run, written when it starts (`running`) and again when it ends.
 * Version 2 lets a row exist before its run ends (`finished_at` may be NULL), adds the cache
 * figures, the cost, a suspended run's continuation and the process that ran it (for
 * {@link SqlRunRecordStore.recoverCrashed}), and a small index of the rows still running.
 * SQLite cannot drop a NOT NULL, so there the table is rebuilt, every row and its rowid (the
 * order of runs that started in the same millisecond) kept.
 */
export const RUN_MIGRATIONS: readonly Migration[] = Object.freeze([
  {
    version: 1,
    name: 'runs',
    statements: [
      `CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        agent TEXT NOT NULL,
        parent_run_id TEXT,
        started_at TEXT NOT NULL,
        finished_at TEXT NOT NULL,
        stop_reason TEXT NOT NULL,
        notice TEXT,
        iterations INTEGER NOT NULL,
        tool_calls INTEGER NOT NULL,
        input_tokens BIGINT NOT NULL,
        output_tokens BIGINT NOT NULL,
        retries INTEGER NOT NULL,
        duration_ms BIGINT NOT NULL,
        error_code TEXT
      )`,
      'CREATE INDEX runs_by_session ON runs (session_id, started_at)',
      'CREATE INDEX runs_by_start ON runs (started_at)',
    ],
  },
  {
    version: 2,
    name: 'runs-from-start',
    statements: {
      sqlite: [
        `CREATE TABLE runs_v2 (${RUNS_V2_COLUMNS})`,
        `INSERT INTO runs_v2 (rowid, ${V1_COLUMNS}) SELECT rowid, ${V1_COLUMNS} FROM runs ORDER BY rowid`,
        'DROP TABLE runs',
        'ALTER TABLE runs_v2 RENAME TO runs',
        'CREATE INDEX runs_by_session ON runs (session_id, started_at)',
        'CREATE INDEX runs_by_start ON runs (started_at)',
        "CREATE INDEX runs_running ON runs (stop_reason) WHERE stop_reason = 'running'",
      ],
      postgres: [
        'ALTER TABLE runs ALTER COLUMN finished_at DROP NOT NULL',
        `ALTER TABLE runs ADD COLUMN cache_read_tokens BIGINT, ADD COLUMN cache_write_tokens BIGINT, ADD COLUMN cost_usd DOUBLE PRECISION,
          ADD COLUMN continuation TEXT, ADD COLUMN host TEXT, ADD COLUMN pid INTEGER`,
        "CREATE INDEX runs_running ON runs (stop_reason) WHERE stop_reason = 'running'",
      ],
    },
  },
]);

const COLUMNS = `${V1_COLUMNS}, cache_read_tokens, cache_write_tokens, cost_usd, continuation, host, pid`;

const BEGIN = `INSERT INTO runs (${COLUMNS}) VALUES (?, ?, ?, ?, ?, NULL, 'running', NULL, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, ?, ?)
  ON CONFLICT (id) DO UPDATE SET stop_reason = 'running', finished_at = NULL, host = excluded.host, pid = excluded.pid`;

const END = `INSERT INTO runs (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (id) DO UPDATE SET finished_at = excluded.finished_at, stop_reason = excluded.stop_reason, notice = excluded.notice,
    iterations = excluded.iterations, tool_calls = excluded.tool_calls, input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
    retries = excluded.retries, duration_ms = excluded.duration_ms, error_code = excluded.error_code, cache_read_tokens = excluded.cache_read_tokens,
    cache_write_tokens = excluded.cache_write_tokens, cost_usd = excluded.cost_usd, continuation = excluded.continuation`;

interface RunRow {
  id: string; session_id: string; agent: string; parent_run_id: string | null; started_at: string; finished_at: string | null;
  stop_reason: string; notice: string | null; iterations: number | string; tool_calls: number | string; input_tokens: number | string;
  output_tokens: number | string; retries: number | string; duration_ms: number | string; error_code: string | null;
  cache_read_tokens: number | string | null; cache_write_tokens: number | string | null; cost_usd: number | string | null;
  continuation: string | null; host: string | null; pid: number | string | null;
}

const num = (v: number | string) => Number(v);
const optional = <K extends string>(key: K, v: number | string | null): { [P in K]?: number } => (v === null || v === undefined ? {} : { [key]: Number(v) } as { [P in K]: number });

function toRecord(r: RunRow): RunRecord {
  return {
    runId: r.id, sessionId: r.session_id, agent: r.agent, ...(r.parent_run_id ? { parentRunId: r.parent_run_id } : {}),
    startedAt: r.started_at, ...(r.finished_at ? { finishedAt: r.finished_at } : {}), stopReason: r.stop_reason as RunRecord['stopReason'],
    ...(r.notice ? { notice: r.notice } : {}),
    iterations: num(r.iterations), toolCalls: num(r.tool_calls), inputTokens: num(r.input_tokens), outputTokens: num(r.output_tokens),
    ...optional('cacheReadTokens', r.cache_read_tokens), ...optional('cacheWriteTokens', r.cache_write_tokens), ...optional('costUsd', r.cost_usd),
    retries: num(r.retries), durationMs: num(r.duration_ms), ...(r.error_code ? { errorCode: r.error_code } : {}),
    ...continuationOf(r.continuation),
  };
}

/** The stored continuation; one that does not parse (a hand edit) reads as none rather than failing the list. */
function continuationOf(text: string | null): { continuation?: RunContinuation } {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? { continuation: value as RunContinuation } : {};
  } catch {
    return {};
  }
}

/** Where {@link SqlRunRecordStore} writes: at once, or riding with the database's next write (the sqlite plugin's `defer`). */
export type RunWrite = (sql: string, params: SqlValue[]) => Promise<void>;

/**
 * Run records on the store's database (`kernel.service('runRecords')`): a `running` row when a
 * run starts (with the process that runs it), its figures when it ends, and at start-up the rows
 * of runs whose process died marked `crashed`.
 *
 * @example
 * const runs = new SqlRunRecordStore(() => db);
 * await runs.begin({ runId, sessionId, agent: 'assistant', startedAt: new Date().toISOString() });
 * const crashed = await runs.recoverCrashed(); // at the next start, after a SIGKILL
 */
export class SqlRunRecordStore implements RunRecordStore {
  private readonly host = hostname();

  /** `write` is how begin and end reach the database (default: `execute`, at once). */
  constructor(private readonly db: () => StoreDatabase, private readonly write: RunWrite = async (sql, params) => { await db().execute(sql, params); }) {}

  /** Newest first. */
  async list({ sessionId, limit = 50 }: { sessionId?: string; limit?: number } = {}): Promise<RunRecord[]> {
    // Runs that started in the same millisecond (a fast model, a busy server) keep the order they
    // were written in: SQLite's rowid, which the indexes on started_at carry, so no sort step;
    // PostgreSQL has none, so the finish time, then the id, decide.
    const order = this.db().dialect === 'sqlite' ? 'started_at DESC, rowid DESC' : 'started_at DESC, finished_at DESC NULLS FIRST, id DESC';
    const rows = sessionId
      ? await this.db().query<RunRow>(`SELECT ${COLUMNS} FROM runs WHERE session_id = ? ORDER BY ${order} LIMIT ?`, [sessionId, limit])
      : await this.db().query<RunRow>(`SELECT ${COLUMNS} FROM runs ORDER BY ${order} LIMIT ?`, [limit]);
    return rows.map(toRecord);
  }

  async get(runId: string): Promise<RunRecord | undefined> {
    const [row] = await this.db().query<RunRow>(`SELECT ${COLUMNS} FROM runs WHERE id = ?`, [runId]);
    return row && toRecord(row);
  }

  /** A `running` row, naming this process; a run continued after it was suspended goes back to `running`. */
  async begin(start: RunStart): Promise<void> {
    await this.write(BEGIN, [start.runId, start.sessionId, start.agent, start.parentRunId ?? null, start.startedAt, this.host, process.pid]);
  }

  /** The run's final figures, over its `running` row (or as a new row, for a run whose start was never recorded). */
  async end(r: RunRecord): Promise<void> {
    await this.write(END, [
      r.runId, r.sessionId, r.agent, r.parentRunId ?? null, r.startedAt, r.finishedAt ?? null, r.stopReason, r.notice ?? null,
      r.iterations, r.toolCalls, r.inputTokens, r.outputTokens, r.retries, r.durationMs, r.errorCode ?? null,
      r.cacheReadTokens ?? null, r.cacheWriteTokens ?? null, r.costUsd ?? null, r.continuation ? JSON.stringify(r.continuation) : null,
      this.host, process.pid,
    ]);
  }

  /**
   * Marks `crashed` every `running` row whose run cannot still be going on: its process is gone
   * (same host, pid not alive), or nobody holds its session's lease (every run holds it while it
   * runs; a lease whose holder died on this host counts as free). A run on another host whose
   * lease is still held is left alone: it may be running. Returns the rows it marked. A run that
   * was marked by mistake (started, not yet holding its lease) is put right by its `end`.
   */
  async recoverCrashed(): Promise<RunRecord[]> {
    const now = Date.now();
    const candidates = await this.db().query<RunRow & { lease_host: string | null; lease_pid: number | string | null; lease_expires: number | string | null }>(
      `SELECT r.id, r.host, r.pid, l.host AS lease_host, l.pid AS lease_pid, l.expires_at AS lease_expires
       FROM runs r LEFT JOIN session_leases l ON l.session_id = r.session_id WHERE r.stop_reason = 'running'`);
    const crashed: RunRecord[] = [];
    for (const c of candidates) {
      const processGone = c.host === this.host && c.pid !== null && !processAlive(Number(c.pid));
      const leaseFree = c.lease_expires === null || Number(c.lease_expires) < now
        || (c.lease_host === this.host && c.lease_pid !== null && !processAlive(Number(c.lease_pid)));
      if (!processGone && !leaseFree) continue;
      const who = c.pid === null ? 'its process' : `process ${c.pid} on ${c.host}`;
      const marked = await this.db().execute("UPDATE runs SET stop_reason = 'crashed', notice = ? WHERE id = ? AND stop_reason = 'running'",
        [`${who} ended before the run did (found at a later start)`, c.id]);
      if (marked.rowsAffected > 0) {
        const record = await this.get(c.id);
        if (record) crashed.push(record);
      }
    }
    return crashed;
  }
}
