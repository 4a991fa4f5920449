import type { ExecutionRow, TaskRow } from './queries.ts';
import { describeSchedule, formatEvery, nextSlot, type Schedule } from './schedule.ts';
import type { CatchUp, Overlap, SessionMode, TaskDefinition } from './task.ts';

/** A stored task as a definition. */
export function definitionOf(row: TaskRow): TaskDefinition {
  const schedule: Schedule = row.cron !== null
    ? { kind: 'cron', cron: row.cron, ...(row.timezone ? { timezone: row.timezone } : {}) }
    : row.every_ms !== null ? { kind: 'every', everyMs: Number(row.every_ms) } : { kind: 'at', at: Date.parse(row.at_time!) };
  return {
    name: row.name, agent: row.agent, message: row.message, schedule, session: row.session_mode,
    ...(row.notify ? { notify: row.notify } : {}),
    enabled: Number(row.enabled) === 1, timeoutMs: Number(row.timeout_ms), overlap: row.overlap, catchUp: row.catch_up,
  };
}

/**
 * A task as `oryx schedule list --json` and `GET /api/tasks` show it: its definition, where it
 * comes from, its next slot and its last execution.
 */
export interface TaskInfo {
  name: string;
  agent: string;
  message: string;
  /** One line: `cron 0 8 * * 1-5 (Europe/Berlin)`, `every 5m`, `at 2026-12-01T08:00:00.000Z`. */
  schedule: string;
  cron?: string;
  every?: string;
  everyMs?: number;
  at?: string;
  timezone?: string;
  session: SessionMode;
  /** The continuing session of a `session: 'task'` task, once it has run. */
  sessionId?: string;
  notify?: string;
  enabled: boolean;
  timeoutMs: number;
  overlap: Overlap;
  catchUp: CatchUp;
  /** `config`: declared in oryx.config.ts; `runtime`: added with `oryx schedule add` or the REST API. */
  source: 'config' | 'runtime';
  /** The next slot (ISO), when enabled and there is one. */
  next?: string;
  last?: { slot: string; status: string; finishedAt?: string; errorCode?: string };
  createdAt?: string;
  updatedAt?: string;
}

export function infoOf(def: TaskDefinition, source: TaskInfo['source'], row: TaskRow | undefined, last: ExecutionRow | undefined, now = Date.now()): TaskInfo {
  const s = def.schedule;
  const next = def.enabled ? nextSlot(s, now) : undefined;
  return {
    name: def.name, agent: def.agent, message: def.message, schedule: describeSchedule(s),
    ...(s.kind === 'cron' ? { cron: s.cron, ...(s.timezone ? { timezone: s.timezone } : {}) } : {}),
    ...(s.kind === 'every' ? { every: formatEvery(s.everyMs), everyMs: s.everyMs } : {}),
    ...(s.kind === 'at' ? { at: new Date(s.at).toISOString() } : {}),
    session: def.session, ...(row?.session_id ? { sessionId: row.session_id } : {}),
    ...(def.notify ? { notify: def.notify } : {}),
    enabled: def.enabled, timeoutMs: def.timeoutMs, overlap: def.overlap, catchUp: def.catchUp, source,
    ...(next !== undefined ? { next: new Date(next).toISOString() } : {}),
    ...(last ? { last: { slot: last.slot, status: last.status, ...(last.finished_at ? { finishedAt: last.finished_at } : {}), ...(last.error_code ? { errorCode: last.error_code } : {}) } } : {}),
    ...(row ? { createdAt: row.created_at, updatedAt: row.updated_at } : {}),
  };
}
