import { STAGE, type PluginContext, type RunResult, type RunContext } from '@oryxos/kernel';
import { errorMessage } from '@oryxos/provider-spec';
import type { Database, Migration, RunContinuation, RunRecord, RunRecordStore } from '@oryxos/contracts';

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
  {
    // A row from the run's start (`running`), cache figures, cost, and a suspended run's continuation.
    version: 2,
    name: 'runs from start, cache, continuation',
    statements: [
      'ALTER TABLE runs ADD COLUMN cache_read_tokens BIGINT',
      'ALTER TABLE runs ADD COLUMN cache_write_tokens BIGINT',
      'ALTER TABLE runs ADD COLUMN cost_usd DOUBLE PRECISION',
      'ALTER TABLE runs ADD COLUMN continuation TEXT',
      "CREATE INDEX runs_running ON runs (stop_reason) WHERE stop_reason = 'running'",
    ],
  },
]);

const RUN_BEGIN = `INSERT INTO runs (id, session_id, agent, parent_run_id, started_at, finished_at, stop_reason, iterations, tool_calls,
  input_tokens, output_tokens, retries, duration_ms) VALUES (?, ?, ?, ?, ?, ?, 'running', 0, 0, 0, 0, 0, 0)`;
const RUN_END = `UPDATE runs SET finished_at = ?, stop_reason = ?, notice = ?, iterations = ?, tool_calls = ?, input_tokens = ?, output_tokens = ?,
  cache_read_tokens = ?, cache_write_tokens = ?, cost_usd = ?, retries = ?, duration_ms = ?, error_code = ?, continuation = ? WHERE id = ?`;

interface RunRow {
  id: string; session_id: string; agent: string; parent_run_id: string | null; started_at: string; finished_at: string;
  stop_reason: string; notice: string | null; iterations: number | string; tool_calls: number | string; input_tokens: number | string;
  output_tokens: number | string; retries: number | string; duration_ms: number | string; error_code: string | null;
  cache_read_tokens: number | string | null; cache_write_tokens: number | string | null; cost_usd: number | null; continuation: string | null;
}

const toRecord = (r: RunRow): RunRecord => ({
  runId: r.id, sessionId: r.session_id, agent: r.agent, ...(r.parent_run_id ? { parentRunId: r.parent_run_id } : {}),
  startedAt: r.started_at, ...(r.stop_reason === 'running' || r.stop_reason === 'crashed' ? {} : { finishedAt: r.finished_at }),
  stopReason: r.stop_reason as RunRecord['stopReason'], ...(r.notice ? { notice: r.notice } : {}),
  ...(r.cache_read_tokens !== null && r.cache_read_tokens !== undefined ? { cacheReadTokens: Number(r.cache_read_tokens) } : {}),
  ...(r.cache_write_tokens !== null && r.cache_write_tokens !== undefined ? { cacheWriteTokens: Number(r.cache_write_tokens) } : {}),
  ...(r.cost_usd !== null && r.cost_usd !== undefined ? { costUsd: Number(r.cost_usd) } : {}),
  ...(r.continuation ? { continuation: JSON.parse(r.continuation) as RunContinuation } : {}),
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
  // A run's row exists from its start, so a run whose process dies is still listed (then `crashed`).
  ctx.hooks.runStart.tapPromise({ stage: STAGE.OBSERVE }, async (run: RunContext) => {
    if (ctx.readOnly) return;
    await store.begin({ runId: run.runId, sessionId: run.sessionId, agent: run.agent.name, ...(run.parentRunId ? { parentRunId: run.parentRunId } : {}), startedAt: run.startedAt })
      .catch((error) => ctx.log.warn(`the record of run ${run.runId} was not started: ${errorMessage(error)}`));
  });
  ctx.hooks.afterRun.tapPromise({ stage: STAGE.OBSERVE }, async (result: RunResult, run: RunContext) => {
    if (ctx.readOnly) return;
    const record: RunRecord = {
      runId: run.runId, sessionId: result.sessionId, agent: result.agent, ...(run.parentRunId ? { parentRunId: run.parentRunId } : {}),
      startedAt: run.startedAt, finishedAt: new Date().toISOString(), stopReason: result.stopReason,
      ...(result.notice ? { notice: result.notice } : {}), iterations: result.iterations, toolCalls: result.budget.toolCalls,
      inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens,
      ...(result.usage.cacheReadTokens !== undefined ? { cacheReadTokens: result.usage.cacheReadTokens } : {}),
      ...(result.usage.cacheWriteTokens !== undefined ? { cacheWriteTokens: result.usage.cacheWriteTokens } : {}),
      retries: result.budget.retries, durationMs: result.budget.ms, ...(result.error ? { errorCode: result.error.code } : {}),
      ...(result.stopReason === 'suspended' && result.suspended ? {
        continuation: { provider: run.provider, model: run.model, ...(run.user ? { user: run.user } : {}), ...(run.door ? { door: run.door } : {}), suspended: result.suspended },
      } : {}),
    };
    // A record that cannot be written (the database went away) costs a warning, never the run's result.
    await store.end(record).catch((error) => ctx.log.warn(`the record of run ${run.runId} was not written: ${errorMessage(error)}`));
  });
  ctx.hooks.init.tapPromise({ stage: STAGE.LATE }, async () => {
    if (ctx.readOnly || !ctx.serving) return;
    const crashed = await store.recoverCrashed().catch((error) => { ctx.log.warn(`could not check for crashed runs: ${errorMessage(error)}`); return []; });
    if (crashed.length) ctx.log.warn(`${crashed.length} run(s) ended when their process died (now marked crashed): ${crashed.map((r) => r.runId.slice(0, 8)).join(', ')}`);
  });
  const store: RunRecordStore = {
    async get(runId) {
      const [row] = await db().query<RunRow>('SELECT * FROM runs WHERE id = ?', [runId]);
      return row && toRecord(row);
    },
    async begin(start) {
      await db().execute(RUN_BEGIN, [start.runId, start.sessionId, start.agent, start.parentRunId ?? null, start.startedAt, start.startedAt]);
    },
    async end(r) {
      const params = [
        r.finishedAt ?? new Date().toISOString(), r.stopReason, r.notice ?? null, r.iterations, r.toolCalls, r.inputTokens, r.outputTokens,
        r.cacheReadTokens ?? null, r.cacheWriteTokens ?? null, r.costUsd ?? null, r.retries, r.durationMs, r.errorCode ?? null,
        r.continuation ? JSON.stringify(r.continuation) : null, r.runId,
      ];
      const { rowsAffected } = await db().execute(RUN_END, params);
      if (rowsAffected === 0) {
        // Its start was not recorded (a read-only start, a failed write): the whole row now.
        await store.begin(r);
        await db().execute(RUN_END, params);
      }
    },
    async recoverCrashed() {
      // A run still `running` whose session nobody holds: its process is gone.
      const rows = await db().query<RunRow>(`SELECT * FROM runs WHERE stop_reason = 'running' AND session_id NOT IN
        (SELECT session_id FROM session_leases WHERE expires_at > ?)`, [Date.now()]);
      for (const r of rows) {
        await db().execute("UPDATE runs SET stop_reason = 'crashed', notice = ? WHERE id = ? AND stop_reason = 'running'", ['its process stopped before the run ended', r.id]);
      }
      return rows.map((r) => ({ ...toRecord(r), stopReason: 'crashed' as const, notice: 'its process stopped before the run ended' }));
    },
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
