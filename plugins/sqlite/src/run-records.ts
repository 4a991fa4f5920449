import { STAGE, errorMessage, type Database, type Migration, type PluginContext, type RunRecord, type RunRecordStore, type RunResult, type RunContext, type SqlValue } from '@oryxos/kernel';

/** The owner the `runs` table's migrations are recorded under (the same on SQLite and PostgreSQL). */
export const RUNS_OWNER = 'runs';

/** The `runs` table: one row per run, written when it ends. Plain SQL both engines speak. */
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
]);

const RUN_INSERT = `INSERT INTO runs (id, session_id, agent, parent_run_id, started_at, finished_at, stop_reason, notice, iterations, tool_calls,
  input_tokens, output_tokens, retries, duration_ms, error_code) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

interface RunRow {
  id: string; session_id: string; agent: string; parent_run_id: string | null; started_at: string; finished_at: string;
  stop_reason: string; notice: string | null; iterations: number | string; tool_calls: number | string; input_tokens: number | string;
  output_tokens: number | string; retries: number | string; duration_ms: number | string; error_code: string | null;
}

const toRecord = (r: RunRow): RunRecord => ({
  runId: r.id, sessionId: r.session_id, agent: r.agent, ...(r.parent_run_id ? { parentRunId: r.parent_run_id } : {}),
  startedAt: r.started_at, finishedAt: r.finished_at, stopReason: r.stop_reason as RunRecord['stopReason'], ...(r.notice ? { notice: r.notice } : {}),
  iterations: Number(r.iterations), toolCalls: Number(r.tool_calls), inputTokens: Number(r.input_tokens), outputTokens: Number(r.output_tokens),
  retries: Number(r.retries), durationMs: Number(r.duration_ms), ...(r.error_code ? { errorCode: r.error_code } : {}),
});

/**
 * Run records on the store's database: migrates the `runs` table at `init` (after the store's
 * own tables), writes a row from `afterRun` for every run, and provides the `runRecords`
 * service. Shared by the sqlite and postgres plugins.
 */
export function attachRunRecords(ctx: PluginContext, db: () => Database): RunRecordStore {
  ctx.hooks.init.tapPromise({ stage: STAGE.EARLY }, async () => {
    await db().migrate(RUNS_OWNER, RUN_MIGRATIONS);
  });
  ctx.hooks.afterRun.tapPromise({ stage: STAGE.OBSERVE }, async (result: RunResult, run: RunContext) => {
    if (ctx.readOnly) return;
    const finished = new Date();
    const params = [
      run.runId, result.sessionId, result.agent, run.parentRunId ?? null, run.startedAt ?? new Date(finished.getTime() - result.budget.ms).toISOString(),
      finished.toISOString(), result.stopReason,
      result.notice ?? null, result.iterations, result.budget.toolCalls, result.usage.inputTokens, result.usage.outputTokens,
      result.budget.retries, result.budget.ms, result.error?.code ?? null,
    ];
    // A record that cannot be written (the database went away) costs a warning, never the run's result.
    const warn = (error: unknown) => ctx.log.warn(`the record of run ${run.runId} was not written: ${errorMessage(error)}`);
    // On SQLite the record rides with the database's next write (the next run's session or
    // message): one commit less per run. Reads through the service see it at once.
    const target = db() as Database & { defer?(sql: string, params: SqlValue[], onError: (error: unknown) => void): void };
    if (typeof target.defer === 'function') target.defer(RUN_INSERT, params, warn);
    else await target.execute(RUN_INSERT, params).catch(warn);
  });
  const store: RunRecordStore = {
    async list({ sessionId, limit = 50 } = {}) {
      // Newest first. Runs that started in the same millisecond (a fast model, a busy server)
      // keep the order they were written in: SQLite's rowid, which the indexes on started_at
      // carry, so no sort step; PostgreSQL has none, so the finish time, then the id, decide.
      const order = db().dialect === 'sqlite' ? 'started_at DESC, rowid DESC' : 'started_at DESC, finished_at DESC, id DESC';
      const rows = sessionId
        ? await db().query<RunRow>(`SELECT * FROM runs WHERE session_id = ? ORDER BY ${order} LIMIT ?`, [sessionId, limit])
        : await db().query<RunRow>(`SELECT * FROM runs ORDER BY ${order} LIMIT ?`, [limit]);
      return rows.map(toRecord);
    },
  };
  ctx.provide('runRecords', store);
  return store;
}
