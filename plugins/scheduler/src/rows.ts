import type { TaskInfo } from '@oryxos/contracts';
import type { ExecutionRow, TaskRow } from './queries.ts';
import { describeSchedule, formatEvery, nextSlot, type Schedule } from './schedule.ts';
import type { TaskDefinition } from './task.ts';

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

export type { TaskInfo };

/**
 * A task as `oryx schedule list --json` and `GET /api/tasks` show it (the contract's `TaskInfo`):
 * its definition, where it comes from, its next slot and its last execution.
 */
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
