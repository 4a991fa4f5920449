import { Cron } from 'croner';
import { schedulerError } from './errors.ts';

/**
 * When a task runs: the slots of a cron expression (in a time zone), of a fixed interval
 * (multiples of it since 1970-01-01T00:00Z, so every process computes the same slots), or one
 * date. A slot is identified by its time in ms; it is the same in every process.
 */
export type Schedule =
  | { kind: 'cron'; cron: string; timezone?: string }
  | { kind: 'every'; everyMs: number }
  | { kind: 'at'; at: number };

/** The shortest interval: slots are whole seconds apart at least. */
export const MIN_EVERY_MS = 1000;

const UNITS: Record<string, number> = {
  ms: 1, millisecond: 1, milliseconds: 1,
  s: 1000, sec: 1000, secs: 1000, second: 1000, seconds: 1000,
  m: 60_000, min: 60_000, mins: 60_000, minute: 60_000, minutes: 60_000,
  h: 3_600_000, hr: 3_600_000, hrs: 3_600_000, hour: 3_600_000, hours: 3_600_000,
  d: 86_400_000, day: 86_400_000, days: 86_400_000,
  w: 604_800_000, week: 604_800_000, weeks: 604_800_000,
};

/**
 * Milliseconds from a number or a duration such as `30s`, `5 minutes`, `1h30m`, `2 days`.
 * Throws ORYX_E_SCHEDULER_BAD_EVERY naming the value.
 *
 * @example
 * parseEvery('1h30m'); // 5_400_000
 */
export function parseEvery(value: number | string, field = 'every'): number {
  let ms: number | undefined;
  if (typeof value === 'number') ms = value;
  else {
    const text = value.trim().toLowerCase();
    if (/^\d+$/.test(text)) ms = Number(text);
    else if (/^(\d+(\.\d+)?\s*[a-z]+\s*)+$/.test(text)) {
      ms = 0;
      for (const [, n, unit] of text.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/g)) ms += Number(n) * (UNITS[unit!] ?? NaN);
    }
  }
  if (ms === undefined || !Number.isFinite(ms) || !Number.isInteger(ms)) {
    throw schedulerError('ORYX_E_SCHEDULER_BAD_EVERY', `${field} ${JSON.stringify(value)} is not a duration: give milliseconds or a number with a unit (ms, s, m, h, d, w), e.g. "30s" or "1h30m"`);
  }
  if (ms < MIN_EVERY_MS) {
    throw schedulerError('ORYX_E_SCHEDULER_BAD_EVERY', `${field} ${JSON.stringify(value)} is ${ms} ms; the shortest interval is ${MIN_EVERY_MS} ms (1s)`);
  }
  return ms;
}

/** `90000` → `1m30s`: the shortest spelling {@link parseEvery} reads back. */
export function formatEvery(ms: number): string {
  const out: string[] = [];
  let rest = ms;
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
    if (rest >= size) { out.push(`${Math.floor(rest / size)}${unit}`); rest %= size; }
  }
  if (rest) out.push(`${rest}ms`);
  return out.join('') || '0ms';
}

/** Throws ORYX_E_SCHEDULER_BAD_TIMEZONE unless `zone` is an IANA time zone this Node knows. */
export function checkTimezone(zone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw schedulerError('ORYX_E_SCHEDULER_BAD_TIMEZONE', `timezone ${JSON.stringify(zone)} is not a time zone this system knows (IANA names such as "Europe/Berlin", "America/New_York" or "UTC")`);
  }
}

/** A paused croner job: only used to compute times, it never fires by itself. */
function cronOf(expr: string, timezone?: string): Cron {
  return new Cron(expr, { paused: true, ...(timezone ? { timezone } : {}), mode: '5-or-6-parts' });
}

/**
 * Validates a cron expression (5 fields, or 6 with seconds first) and that it ever fires.
 * Throws ORYX_E_SCHEDULER_BAD_CRON showing the expression and what is wrong.
 */
export function checkCron(expr: string, timezone?: string): void {
  let next: Date | null;
  try {
    next = cronOf(expr, timezone).nextRun();
  } catch (error) {
    const why = (error as Error).message.replace(/^CronPattern: /, '');
    throw schedulerError('ORYX_E_SCHEDULER_BAD_CRON', `cron ${JSON.stringify(expr)} is not valid: ${why}`);
  }
  if (!next) throw schedulerError('ORYX_E_SCHEDULER_BAD_CRON', `cron ${JSON.stringify(expr)} never fires (no date matches it)`);
}

/**
 * Reads an `at` date: ISO 8601 with a time zone (`Z` or `+01:00`), so it means the same
 * instant on every machine. Throws ORYX_E_SCHEDULER_BAD_AT.
 */
export function parseAt(value: string | Date): number {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw schedulerError('ORYX_E_SCHEDULER_BAD_AT', 'at is an invalid Date');
    return value.getTime();
  }
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})$/i;
  const ms = Date.parse(value);
  if (!iso.test(value.trim()) || Number.isNaN(ms)) {
    const zoneless = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value.trim());
    throw schedulerError('ORYX_E_SCHEDULER_BAD_AT', zoneless
      ? `at ${JSON.stringify(value)} has no time zone: add Z (UTC) or an offset such as +01:00`
      : `at ${JSON.stringify(value)} is not an ISO 8601 date and time (YYYY-MM-DDTHH:MM[:SS]Z or with an offset)`);
  }
  return ms;
}

/**
 * The first slot strictly after `after` (ms), or undefined when there is none (an `at` that
 * has passed).
 */
export function nextSlot(schedule: Schedule, after: number): number | undefined {
  switch (schedule.kind) {
    case 'every': return (Math.floor(after / schedule.everyMs) + 1) * schedule.everyMs;
    case 'at': return schedule.at > after ? schedule.at : undefined;
    case 'cron': return cronOf(schedule.cron, schedule.timezone).nextRun(new Date(after))?.getTime();
  }
}

/**
 * The slots in `(after, upTo]`, oldest first: the newest `limit` of them, and how many older
 * ones were left out.
 *
 * @example
 * slotsBetween({ kind: 'every', everyMs: 1000 }, 0, 3500, 10); // { slots: [1000, 2000, 3000], omitted: 0 }
 */
export function slotsBetween(schedule: Schedule, after: number, upTo: number, limit: number): { slots: number[]; omitted: number } {
  if (upTo <= after) return { slots: [], omitted: 0 };
  switch (schedule.kind) {
    case 'at': return { slots: schedule.at > after && schedule.at <= upTo ? [schedule.at] : [], omitted: 0 };
    case 'every': {
      const first = Math.floor(after / schedule.everyMs) + 1;
      const last = Math.floor(upTo / schedule.everyMs);
      const count = Math.max(0, last - first + 1);
      const from = Math.max(first, last - limit + 1);
      const slots: number[] = [];
      for (let k = from; k <= last; k++) slots.push(k * schedule.everyMs);
      return { slots, omitted: count - slots.length };
    }
    case 'cron': {
      // croner's previousRuns is exclusive of its reference: +1 ms includes a slot at upTo.
      const runs = cronOf(schedule.cron, schedule.timezone).previousRuns(limit + 1, new Date(upTo + 1))
        .map((d) => d.getTime()).filter((t) => t > after);
      const slots = runs.slice(0, limit).reverse();
      // One more than the limit was asked for: it says whether older ones exist (not how many).
      return { slots, omitted: runs.length > limit ? 1 : 0 };
    }
  }
}

/** One line for people: `cron 0 8 * * 1-5 (Europe/Berlin)`, `every 5m`, `at 2026-12-01T08:00:00.000Z`. */
export function describeSchedule(schedule: Schedule): string {
  switch (schedule.kind) {
    case 'cron': return `cron ${schedule.cron}${schedule.timezone ? ` (${schedule.timezone})` : ''}`;
    case 'every': return `every ${formatEvery(schedule.everyMs)}`;
    case 'at': return `at ${new Date(schedule.at).toISOString()}`;
  }
}
