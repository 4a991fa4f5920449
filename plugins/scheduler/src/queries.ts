import type { Database, DatabaseTx, ExecutionRow, SqlValue } from '@oryxos/contracts';
import type { TaskDefinition } from './task.ts';

/**
 * Every SQL statement of the scheduler, in standard SQL with `?` parameters, so the same
 * module serves SQLite and PostgreSQL. `INSERT … ON CONFLICT (task, slot) DO NOTHING` is the
 * claim: whichever process inserts a slot first runs it.
 */

/** A `scheduled_tasks` row, as stored. */
export interface TaskRow {
  name: string; agent: string; message: string; cron: string | null; every_ms: number | null; at_time: string | null;
  timezone: string | null; session_mode: 'new' | 'task'; session_id: string | null; notify: string | null; enabled: number;
  timeout_ms: number; overlap: 'skip' | 'queue'; catch_up: 'latest' | 'none' | 'all'; source: 'config' | 'runtime';
  active_since: string; created_at: string; updated_at: string;
}

/** Final statuses of an execution; `running` and `queued` are the states before. */
/** `waiting`: the run stopped for an approval (announced on the notify channel; it expires after approvals({ timeoutMs: { scheduler } })). */
export type ExecutionStatus = Exclude<ExecutionRow['status'], 'running' | 'queued'>;
/** What made an execution: its slot came, a start caught up with it, or `oryx schedule run`. */
export type FiredBy = ExecutionRow['fired_by'];

/** A `task_executions` row, as stored (the contract's). */
export type { ExecutionRow };

/** An execution that may still be going, as overlap and recovery see it. */
export type ActiveRow = Pick<ExecutionRow, 'id' | 'slot' | 'status' | 'owner' | 'heartbeat_at'>;

/** What a claim got: the slot (running, queued behind a run, or recorded skipped), or nothing. */
export type Claim = { taken: true } | { taken: false; id: number; status: 'running' | 'queued' | 'skipped'; blockedBy?: ActiveRow };

/** How a finished run is recorded. */
export interface Outcome {
  status: ExecutionStatus;
  finishedAt: string;
  durationMs?: number;
  stopReason?: string;
  answer?: string;
  errorCode?: string;
  error?: string;
  /** How to fix the error (for the log line; not stored: the code's README entry says it too). */
  hint?: string;
  runId?: string;
  iterations?: number;
  inputTokens?: number;
  outputTokens?: number;
}

const ACTIVE = "status IN ('running', 'queued')";

function taskValues(def: TaskDefinition): SqlValue[] {
  const s = def.schedule;
  return [
    def.agent, def.message, s.kind === 'cron' ? s.cron : null, s.kind === 'every' ? s.everyMs : null,
    s.kind === 'at' ? new Date(s.at).toISOString() : null, s.kind === 'cron' ? s.timezone ?? null : null, def.session,
    def.notify ?? null, def.enabled ? 1 : 0, def.timeoutMs, def.overlap, def.catchUp,
  ];
}

/**
 * The scheduler's tables behind a small API. `db` is a getter: the plugin is set up before
 * the database is open.
 *
 * @example
 * const store = new TaskStore(() => kernel.service('database'));
 * const claim = await store.claim({ task: 'nightly', slot, firedBy: 'schedule', owner, now, overlap: 'skip', isLive });
 */
export class TaskStore {
  constructor(private readonly db: () => Database) {}

  listTasks(): Promise<TaskRow[]> {
    return this.db().query<TaskRow>('SELECT * FROM scheduled_tasks ORDER BY name');
  }

  async getTask(name: string): Promise<TaskRow | undefined> {
    return (await this.db().query<TaskRow>('SELECT * FROM scheduled_tasks WHERE name = ?', [name]))[0];
  }

  async insertTask(def: TaskDefinition, source: TaskRow['source'], now: string): Promise<boolean> {
    const r = await this.db().execute(`INSERT INTO scheduled_tasks (name, agent, message, cron, every_ms, at_time, timezone, session_mode,
      notify, enabled, timeout_ms, overlap, catch_up, source, active_since, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
    [def.name, ...taskValues(def), source, now, now, now]);
    return r.rowsAffected === 1;
  }

  /** Rewrites a task's definition; `activeSince` when its slots start counting anew. */
  async updateTask(def: TaskDefinition, source: TaskRow['source'], now: string, activeSince?: string): Promise<void> {
    await this.db().execute(`UPDATE scheduled_tasks SET agent = ?, message = ?, cron = ?, every_ms = ?, at_time = ?, timezone = ?,
      session_mode = ?, notify = ?, enabled = ?, timeout_ms = ?, overlap = ?, catch_up = ?, source = ?,
      active_since = COALESCE(?, active_since), updated_at = ? WHERE name = ?`,
    [...taskValues(def), source, activeSince ?? null, now, def.name]);
  }

  async deleteTask(name: string): Promise<boolean> {
    return (await this.db().execute('DELETE FROM scheduled_tasks WHERE name = ?', [name])).rowsAffected === 1;
  }

  /** Enabling starts its slots anew: what passed while it was disabled is not missed. */
  async setEnabled(name: string, enabled: boolean, now: string): Promise<void> {
    await this.db().execute(`UPDATE scheduled_tasks SET enabled = ?, updated_at = ?,
      active_since = CASE WHEN enabled = 0 AND ? = 1 THEN ? ELSE active_since END WHERE name = ?`, [enabled ? 1 : 0, now, enabled ? 1 : 0, now, name]);
  }

  /** Sets the task's continuing session, unless another process set one first (it is then kept). */
  async claimSession(name: string, sessionId: string, replacing: string | null): Promise<boolean> {
    const r = await this.db().execute(
      'UPDATE scheduled_tasks SET session_id = ? WHERE name = ? AND (session_id IS NULL OR session_id = ?)', [sessionId, name, replacing]);
    return r.rowsAffected === 1;
  }

  /** The newest slot with a row, whatever its status. */
  async latestSlot(task: string): Promise<string | undefined> {
    const [row] = await this.db().query<{ slot: string | null }>('SELECT MAX(slot) AS slot FROM task_executions WHERE task = ?', [task]);
    return row?.slot ?? undefined;
  }

  /**
   * Claims a slot in one transaction: runs still going whose process is gone are recorded
   * interrupted; then the slot is inserted as `running`, or — while a live run of the task is
   * going — `queued` or `skipped` by `overlap`. A slot another process holds gives `taken`.
   */
  claim(input: {
    task: string; slot: string; firedBy: FiredBy; owner: string; now: string; overlap: 'skip' | 'queue'; isLive: (row: ActiveRow) => boolean;
  }): Promise<Claim> {
    return this.db().transaction(async (tx) => {
      const blockedBy = await this.liveRuns(tx, input.task, input.now, input.isLive);
      const busy = blockedBy[0];
      const status = !busy ? 'running' : input.overlap === 'queue' ? 'queued' : 'skipped';
      const skipped = status === 'skipped';
      const rows = await tx.query<{ id: number }>(`INSERT INTO task_executions (task, slot, status, fired_by, owner, heartbeat_at, started_at,
        finished_at, error_code, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (task, slot) DO NOTHING RETURNING id`, [
        input.task, input.slot, status, input.firedBy, input.owner, skipped ? null : input.now, status === 'running' ? input.now : null,
        skipped ? input.now : null, skipped ? 'ORYX_E_SCHEDULER_OVERLAP' : null,
        skipped ? `skipped: the run of slot ${busy!.slot} was still going (overlap: skip)` : null,
      ]);
      if (!rows.length) return { taken: true };
      return { taken: false, id: Number(rows[0]!.id), status, ...(busy ? { blockedBy: busy } : {}) };
    });
  }

  /**
   * Turns a queued execution into the running one when no live run of its task is going and
   * no earlier queued slot waits. `gone` when another process recorded it interrupted.
   */
  promote(exec: { id: number; task: string; slot: string }, now: string, isLive: (row: ActiveRow) => boolean): Promise<'running' | 'waiting' | 'gone'> {
    return this.db().transaction(async (tx) => {
      const live = await this.liveRuns(tx, exec.task, now, isLive);
      const ahead = live.filter((r) => r.id !== exec.id && (r.status === 'running' || r.slot < exec.slot));
      if (ahead.length) return 'waiting';
      const r = await tx.execute("UPDATE task_executions SET status = 'running', started_at = ?, heartbeat_at = ? WHERE id = ? AND status = 'queued'",
        [now, now, exec.id]);
      return r.rowsAffected === 1 ? 'running' : 'gone';
    });
  }

  /** Records slots as missed (a slot another process holds is left alone). */
  async insertMissed(task: string, slots: string[], owner: string, now: string): Promise<number> {
    if (!slots.length) return 0;
    return this.db().transaction(async (tx) => {
      let n = 0;
      for (const slot of slots) {
        const r = await tx.execute(`INSERT INTO task_executions (task, slot, status, fired_by, owner, finished_at, error_code, error)
          VALUES (?, ?, 'missed', 'catch-up', ?, ?, 'ORYX_E_SCHEDULER_MISSED', ?) ON CONFLICT (task, slot) DO NOTHING`,
        [task, slot, owner, now, 'no scheduler process ran this slot on time, and catchUp did not run it']);
        n += r.rowsAffected;
      }
      return n;
    });
  }

  async setSession(id: number, sessionId: string): Promise<void> {
    await this.db().execute('UPDATE task_executions SET session_id = ? WHERE id = ?', [sessionId, id]);
  }

  /** Records the outcome of an execution this process holds (a row another process interrupted is left alone). */
  async finish(id: number, o: Outcome): Promise<void> {
    await this.db().execute(`UPDATE task_executions SET status = ?, finished_at = ?, duration_ms = ?, stop_reason = ?, answer = ?, error_code = ?,
      error = ?, run_id = COALESCE(?, run_id), iterations = ?, input_tokens = ?, output_tokens = ? WHERE id = ? AND ${ACTIVE}`, [
      o.status, o.finishedAt, o.durationMs ?? null, o.stopReason ?? null, o.answer ?? null, o.errorCode ?? null, o.error ?? null,
      o.runId ?? null, o.iterations ?? null, o.inputTokens ?? null, o.outputTokens ?? null, id,
    ]);
  }

  async setNotify(id: number, status: string, notificationId: number | undefined): Promise<void> {
    await this.db().execute('UPDATE task_executions SET notify_status = ?, notification_id = ? WHERE id = ?', [status, notificationId ?? null, id]);
  }

  /** Keeps this process's executions alive in the eyes of other processes. */
  async heartbeat(owner: string, now: string): Promise<void> {
    await this.db().execute(`UPDATE task_executions SET heartbeat_at = ? WHERE owner = ? AND ${ACTIVE}`, [now, owner]);
  }

  /** Records every execution whose process is gone as interrupted; returns how many. */
  recoverAll(now: string, isLive: (row: ActiveRow) => boolean): Promise<number> {
    return this.db().transaction(async (tx) => {
      const rows = await tx.query<ActiveRow & { task: string }>(`SELECT id, task, slot, status, owner, heartbeat_at FROM task_executions WHERE ${ACTIVE}`);
      let n = 0;
      for (const row of rows) if (!isLive(row)) n += await interrupt(tx, row, now);
      return n;
    });
  }

  executions(task: string, options: { limit?: number; status?: string } = {}): Promise<ExecutionRow[]> {
    const limit = Math.max(1, Math.min(10_000, Math.floor(options.limit ?? 50)));
    return options.status
      ? this.db().query<ExecutionRow>('SELECT * FROM task_executions WHERE task = ? AND status = ? ORDER BY slot DESC LIMIT ?', [task, options.status, limit])
      : this.db().query<ExecutionRow>('SELECT * FROM task_executions WHERE task = ? ORDER BY slot DESC LIMIT ?', [task, limit]);
  }

  async execution(id: number): Promise<ExecutionRow | undefined> {
    return (await this.db().query<ExecutionRow>('SELECT * FROM task_executions WHERE id = ?', [id]))[0];
  }

  /** The newest execution of each task. */
  latestExecutions(): Promise<ExecutionRow[]> {
    return this.db().query<ExecutionRow>(`SELECT e.* FROM task_executions e
      JOIN (SELECT task, MAX(slot) AS slot FROM task_executions GROUP BY task) m ON m.task = e.task AND m.slot = e.slot`);
  }

  /**
   * The task's runs that are still going (or queued), oldest slot first, after recording those
   * of gone processes as interrupted. Locks the task's row first, so on a server database two
   * claims of one task take turns (SQLite's write transaction already does).
   */
  private async liveRuns(tx: DatabaseTx, task: string, now: string, isLive: (row: ActiveRow) => boolean): Promise<ActiveRow[]> {
    await tx.execute('UPDATE scheduled_tasks SET updated_at = updated_at WHERE name = ?', [task]);
    const rows = await tx.query<ActiveRow>(`SELECT id, slot, status, owner, heartbeat_at FROM task_executions WHERE task = ? AND ${ACTIVE} ORDER BY slot`, [task]);
    const live: ActiveRow[] = [];
    for (const row of rows) {
      if (isLive(row)) live.push(row);
      else await interrupt(tx, row, now);
    }
    return live;
  }
}

/** A run whose process died: `error` if it had started, `skipped` if it was still queued. */
async function interrupt(tx: DatabaseTx, row: ActiveRow, now: string): Promise<number> {
  const started = row.status === 'running';
  const r = await tx.execute(`UPDATE task_executions SET status = ?, finished_at = ?, error_code = 'ORYX_E_SCHEDULER_INTERRUPTED', error = ?
    WHERE id = ? AND status = ?`, [
    started ? 'error' : 'skipped', now,
    `the process running it (${row.owner ?? 'unknown'}) stopped before it ${started ? 'finished' : 'started'}; the slot is not run again`,
    row.id, row.status,
  ]);
  return r.rowsAffected;
}
