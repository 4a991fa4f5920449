import { OryxError } from '@oryxos/provider-spec';

/**
 * Every error code this package raises or records, with how to fix it. `test/error-codes.test.ts`
 * checks this table against README.md so the two never drift. The last five are never thrown:
 * they are the `error_code` of an execution row.
 *
 * @example
 * if (isOryxError(e) && e.code in ERROR_CODES) console.error(ERROR_CODES[e.code as SchedulerErrorCode]);
 */
export const ERROR_CODES = {
  ORYX_E_SCHEDULER_OPTIONS: 'Fix the scheduler() option the message names in oryx.config.ts.',
  ORYX_E_SCHEDULER_BAD_TASK: 'Fix the task field the message names: name (letters, digits, . _ -), message, exactly one of cron, every or at, session, overlap, catchUp, timeoutMs.',
  ORYX_E_SCHEDULER_BAD_CRON: 'Write a cron expression of 5 fields (minute hour day month weekday) or 6 (seconds first), e.g. "0 8 * * 1-5", that fires at least once.',
  ORYX_E_SCHEDULER_BAD_EVERY: 'Give every as milliseconds (at least 1000) or a duration such as "30s", "5m", "2h", "1d".',
  ORYX_E_SCHEDULER_BAD_AT: 'Give at as an ISO 8601 date with a time zone, e.g. "2026-12-01T09:00:00+01:00" or "2026-12-01T08:00:00Z".',
  ORYX_E_SCHEDULER_AT_PAST: 'The at date has passed: give a date in the future (or run the task now with `oryx schedule run NAME`).',
  ORYX_E_SCHEDULER_BAD_TIMEZONE: 'Give an IANA time zone such as "Europe/Berlin" or "UTC", and only with cron (every and at do not use one).',
  ORYX_E_SCHEDULER_UNKNOWN_AGENT: 'Create .oryxos/agents/<name>/AGENT.md, or name an agent listed by `oryx agents`.',
  ORYX_E_SCHEDULER_UNKNOWN_CHANNEL: 'Name a channel listed by `oryx notify channels` (enable notify() in oryx.config.ts), or drop notify from the task.',
  ORYX_E_SCHEDULER_DUPLICATE: 'A task with that name exists (`oryx schedule list`): pick another name, or remove the old task first.',
  ORYX_E_SCHEDULER_NOT_FOUND: 'List the tasks with `oryx schedule list` and use one of those names.',
  ORYX_E_SCHEDULER_CONFIG_TASK: 'The task is declared in oryx.config.ts: change or remove it there (the change applies when the scheduler next starts).',
  ORYX_E_SCHEDULER_NOT_ENABLED: 'Add scheduler() from @oryxos/plugin-scheduler to `plugins` in oryx.config.ts.',
  ORYX_E_SCHEDULER_OVERLAP: 'Recorded: the slot was skipped because a run of the task was still going (overlap: skip); use overlap: "queue" to run it after, or a longer interval.',
  ORYX_E_SCHEDULER_MISSED: 'Recorded: no scheduler process was up at the slot time and catchUp did not run it; set catchUp: "all" or "latest" to run missed slots at start.',
  ORYX_E_SCHEDULER_TIMEOUT: 'Recorded: the run took longer than the task\'s timeoutMs and was aborted; raise timeoutMs or ask the agent for less.',
  ORYX_E_SCHEDULER_SHUTDOWN: 'Recorded: the scheduler stopped (SIGINT/SIGTERM) and the run did not finish within the grace period; raise graceMs (or --grace).',
  ORYX_E_SCHEDULER_INTERRUPTED: 'Recorded: the process running the slot died (killed, crashed) before it finished; the slot is not run again. Look at the session for what it did.',
} as const;

export type SchedulerErrorCode = keyof typeof ERROR_CODES;

/** An OryxError with one of this package's codes; the hint defaults to the table's. */
export function schedulerError(
  code: SchedulerErrorCode, message: string, options: { hint?: string; cause?: unknown; data?: Record<string, unknown> } = {},
): OryxError {
  return new OryxError(code, message, { ...options, hint: options.hint ?? ERROR_CODES[code] });
}
