import type { RunRecord, SqlValue } from '@oryxos/contracts';
import { STAGE, type PluginContext, type RunContext, type RunResult } from '@oryxos/kernel';
import { errorMessage } from '@oryxos/provider-spec';
import { RUN_MIGRATIONS, RUNS_OWNER, SqlRunRecordStore } from './run-records.ts';
import { SqlSessionStore } from './session-store.ts';
import type { StoreDatabase } from './store-database.ts';

/** What {@link attachStore} needs of the plugin that drives the store. */
export interface AttachOptions {
  /** The database (a getter: the plugin opens it after setup, or at first use). */
  db: () => StoreDatabase;
  /** The plugin's `database.migrate` (the run records register theirs through it). */
  migrate(owner: string, migrations: typeof RUN_MIGRATIONS): Promise<number[]>;
  leaseMs: number;
  lockTimeoutMs: number;
  appendRetries: number;
  /**
   * How a run's final record is written: at once by default; a driver may let it ride with its
   * next write (the sqlite plugin's deferred writes), committed within one turn of the event loop.
   */
  writeLater?(sql: string, params: SqlValue[], onError: (error: unknown) => void): void;
}

/**
 * Provides the `sessions` and `runRecords` services of a store plugin (sqlite, postgres) and
 * taps what keeps them: at `init`, the `runs` table's migrations and — unless the process only
 * reads — every run a dead process left `running` marked `crashed`; a `running` row when each
 * run starts; its figures when it ends (whatever its end), with the session's answered call
 * marks cleared (`settleMarks`). A record that cannot be written costs
 * a warning, never the run. The plugin's own `close` tap releases this process's leases
 * (`sessions.close()`) before it closes the database: close taps run last-registered first.
 *
 * @example
 * const { sessions } = attachStore(ctx, { db: () => current(), migrate: service.migrate, leaseMs, lockTimeoutMs, appendRetries });
 */
export function attachStore(ctx: PluginContext, options: AttachOptions): { sessions: SqlSessionStore; runs: SqlRunRecordStore } {
  const sessions = new SqlSessionStore(options.db, {
    leaseMs: options.leaseMs, lockTimeoutMs: options.lockTimeoutMs, appendRetries: options.appendRetries, log: ctx.log, name: ctx.name, writeLater: options.writeLater,
    onCancelRequested(sessionId, by) {
      ctx.log.warn(`${by} is deleting session ${sessionId}; aborting its run in this process`);
      void ctx.runs.abortSession(sessionId, 'session-deleted');
    },
  });
  const runs = new SqlRunRecordStore(options.db);
  const ending = options.writeLater
    ? new SqlRunRecordStore(options.db, (sql, params) => new Promise<void>((resolve) => {
      // Resolves at once: the row commits with the next write; a failure is only logged, as below.
      options.writeLater!(sql, params, (error) => ctx.log.warn(`a run record was not written: ${errorMessage(error)}`));
      resolve();
    }))
    : runs;
  ctx.provide('sessions', sessions);
  ctx.provide('runRecords', runs);

  ctx.hooks.init.tapPromise({ stage: STAGE.EARLY }, async () => {
    await options.migrate(RUNS_OWNER, RUN_MIGRATIONS);
    if (ctx.readOnly) return;
    for (const r of await runs.recoverCrashed()) {
      ctx.log.warn(`run ${r.runId} of session ${r.sessionId} (${r.agent}, started ${r.startedAt}) did not end: ${r.notice}; recorded as crashed`);
    }
  });
  // The row must be in the file before the model is first called: a process killed during that
  // call still leaves its run behind (`crashed` at the next start), so it is written at once.
  ctx.hooks.runStart.tapPromise({ stage: STAGE.EARLY }, async (run) => {
    if (ctx.readOnly) return;
    await runs.begin({ runId: run.runId, sessionId: run.sessionId, agent: run.agent.name, startedAt: run.startedAt ?? new Date().toISOString(), ...(run.parentRunId ? { parentRunId: run.parentRunId } : {}) })
      .catch((error) => ctx.log.warn(`the start of run ${run.runId} was not recorded: ${errorMessage(error)}`));
  });
  ctx.hooks.afterRun.tapPromise({ stage: STAGE.OBSERVE }, async (result: RunResult, run: RunContext) => {
    if (ctx.readOnly) return;
    await ending.end(recordOf(result, run)).catch((error) => ctx.log.warn(`the record of run ${run.runId} was not written: ${errorMessage(error)}`));
    await sessions.settleMarks(run.sessionId);
  });
  return { sessions, runs };
}

/** A run's record from what the kernel says of it when it ends. */
export function recordOf(result: RunResult, run: RunContext): RunRecord {
  const finished = new Date();
  const usage = result.usage;
  return {
    runId: run.runId, sessionId: result.sessionId, agent: result.agent, ...(run.parentRunId ? { parentRunId: run.parentRunId } : {}),
    startedAt: run.startedAt ?? new Date(finished.getTime() - result.budget.ms).toISOString(), finishedAt: finished.toISOString(),
    stopReason: result.stopReason as RunRecord['stopReason'], ...(result.notice ? { notice: result.notice } : {}),
    iterations: result.iterations, toolCalls: result.budget.toolCalls, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens,
    ...(usage.cacheReadTokens !== undefined ? { cacheReadTokens: usage.cacheReadTokens } : {}),
    ...(usage.cacheWriteTokens !== undefined ? { cacheWriteTokens: usage.cacheWriteTokens } : {}),
    retries: result.budget.retries, durationMs: result.budget.ms, ...(result.error?.code ? { errorCode: result.error.code } : {}),
    // What `runs.continue` needs to pick a suspended run up again, in this process or another.
    ...(result.stopReason === 'suspended' && result.suspended ? {
      continuation: { provider: run.provider, model: run.model, ...(run.user ? { user: run.user } : {}), ...(run.door ? { door: run.door } : {}), suspended: result.suspended, ...(run.direct ? { direct: true } : {}) },
    } : {}),
  };
}
