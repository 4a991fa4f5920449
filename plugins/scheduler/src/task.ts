import { definedOptions, shape as s } from '@oryxos/schema-kit';
import { isOryxError } from '@oryxos/provider-spec';
import { schedulerError } from './errors.ts';
import { checkCron, checkTimezone, parseAt, parseEvery, type Schedule } from './schedule.ts';

/** What a task is run with: each session gets a fresh session, or one session continues across runs. */
export type SessionMode = 'new' | 'task';
/** What happens to a slot that comes while the task's previous run is still going. */
export type Overlap = 'skip' | 'queue';
/** What happens at start to the slots that passed while no scheduler process was up. */
export type CatchUp = 'latest' | 'none' | 'all';

/**
 * A task as written in `scheduler({ tasks })`, `oryx schedule add` or `POST /api/tasks`.
 *
 * @example
 * { name: 'morning-brief', agent: 'assistant', message: 'Summarise yesterday.', cron: '0 8 * * 1-5', timezone: 'Europe/Berlin', notify: 'ops' }
 */
export interface TaskInput {
  name: string;
  agent: string;
  message: string;
  /** Cron expression: 5 fields, or 6 with seconds first. */
  cron?: string;
  /** Interval: ms (at least 1000) or a duration such as `30s`, `5m`, `1h30m`. */
  every?: number | string;
  /** One date, ISO 8601 with a time zone. */
  at?: string | Date;
  /** IANA time zone for `cron` (default: UTC). */
  timezone?: string;
  /** `new` (default): a new session per run; `task`: one session continues across runs. */
  session?: SessionMode;
  /** A notify channel that receives each result. */
  notify?: string;
  /** Default true. */
  enabled?: boolean;
  /** A run past this is aborted and recorded `timeout`. Default 600000 (10 min). */
  timeoutMs?: number;
  /** Default `skip`. */
  overlap?: Overlap;
  /** Default `latest`. */
  catchUp?: CatchUp;
}

/** A validated task. */
export interface TaskDefinition {
  name: string;
  agent: string;
  message: string;
  schedule: Schedule;
  session: SessionMode;
  notify?: string;
  enabled: boolean;
  timeoutMs: number;
  overlap: Overlap;
  catchUp: CatchUp;
}

export const DEFAULT_TIMEOUT_MS = 600_000;
export const TASK_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export const taskShape = s.object({
  name: s.string(),
  agent: s.string(),
  message: s.string(),
  cron: s.string().optional(),
  every: s.union(s.number(), s.string()).optional(),
  at: s.union(s.string(), s.custom<Date>('a Date', (v) => v instanceof Date)).optional(),
  timezone: s.string().optional(),
  session: s.literal('new', 'task').optional(),
  notify: s.string().optional(),
  enabled: s.boolean().optional(),
  timeoutMs: s.integer({ min: 1000 }).optional(),
  overlap: s.literal('skip', 'queue').optional(),
  catchUp: s.literal('latest', 'none', 'all').optional(),
});

/**
 * Checks a task's shape and schedule (not whether its agent and channel exist, nor whether
 * an `at` has passed: the scheduler service checks those when the task is added). Each
 * problem has its own code; `where` prefixes the message (`scheduler(): tasks[2]`).
 *
 * @example
 * parseTask({ name: 'n', agent: 'a', message: 'm', cron: '61 * * * *' }); // throws ORYX_E_SCHEDULER_BAD_CRON
 */
export function parseTask(raw: unknown, where = 'task'): TaskDefinition {
  const named = raw && typeof raw === 'object' && typeof (raw as { name?: unknown }).name === 'string' ? `${where} "${(raw as { name: string }).name}"` : where;
  try {
    return parse(raw);
  } catch (error) {
    if (isOryxError(error)) error.message = `${named}: ${error.message}`;
    throw error;
  }
}

function parse(raw: unknown): TaskDefinition {
  const value = raw === undefined || raw === null ? raw : definedOptions(raw);
  const found = s.check(taskShape, value);
  if (found) {
    const field = found.path.length ? found.path.join('.') : '(task)';
    const known = found.problem === 'must be removed' ? ` (known fields: ${taskShape.keys.join(', ')})` : '';
    throw schedulerError('ORYX_E_SCHEDULER_BAD_TASK', `${field === '(task)' ? 'a task' : field} ${found.problem}${known}`, { data: { field } });
  }
  const t = value as TaskInput;
  const bad = (field: string, message: string) => schedulerError('ORYX_E_SCHEDULER_BAD_TASK', `${field} ${message}`, { data: { field } });
  if (!TASK_NAME.test(t.name)) throw bad('name', `${JSON.stringify(t.name)} must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`);
  if (!t.agent.trim()) throw bad('agent', 'must name an agent');
  if (!t.message.trim()) throw bad('message', 'must not be empty: it is what the agent is asked at every run');
  if (t.message.includes('\0')) throw bad('message', 'must not contain NUL characters');
  if (t.notify !== undefined && !t.notify.trim()) throw bad('notify', 'must name a channel (or be left out)');
  const given = (['cron', 'every', 'at'] as const).filter((k) => t[k] !== undefined);
  if (given.length !== 1) {
    throw bad(given.length ? given.join(', ') : 'schedule', given.length ? 'are exclusive: give exactly one of cron, every or at' : 'is missing: give exactly one of cron, every or at');
  }
  let schedule: Schedule;
  if (t.cron !== undefined) {
    if (t.timezone !== undefined) checkTimezone(t.timezone);
    checkCron(t.cron.trim(), t.timezone);
    schedule = { kind: 'cron', cron: t.cron.trim().replace(/\s+/g, ' '), ...(t.timezone ? { timezone: t.timezone } : {}) };
  } else {
    if (t.timezone !== undefined) {
      throw schedulerError('ORYX_E_SCHEDULER_BAD_TIMEZONE', `timezone applies to cron only; ${given[0]} ${given[0] === 'at' ? 'carries its own offset' : 'counts from 1970-01-01T00:00Z'}`);
    }
    schedule = t.every !== undefined ? { kind: 'every', everyMs: parseEvery(t.every) } : { kind: 'at', at: parseAt(t.at!) };
  }
  return {
    name: t.name,
    agent: t.agent.trim(),
    message: t.message,
    schedule,
    session: t.session ?? 'new',
    ...(t.notify ? { notify: t.notify.trim() } : {}),
    enabled: t.enabled ?? true,
    timeoutMs: t.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    overlap: t.overlap ?? 'skip',
    catchUp: t.catchUp ?? 'latest',
  };
}

/**
 * Whether two definitions fire at the same slots: a change of schedule (or re-enabling) resets
 * the point from which slots count as missed.
 */
export function sameSchedule(a: TaskDefinition, b: TaskDefinition): boolean {
  return JSON.stringify(a.schedule) === JSON.stringify(b.schedule);
}
