/**
 * The wall clock for the loop's per-step timestamps (a stored message's time, the prompt's
 * "Current time"): `new Date().toISOString()`, read as the monotonic clock plus an offset to
 * `Date.now()` checked again every second, and made once per millisecond. On the virtual
 * machines OryxOS is measured on `Date.now()` costs a system call (~0.2–0.4 µs, several per
 * step); `performance.now()` a third of that. The time may lag `Date.now()` by up to 1 ms.
 */
const RECHECK_MS = 1_000;
/** `Date.now() - performance.now()` when last checked. */
let offset = 0;
let checkedAt = -Infinity;
let lastMs = -1;
let lastIso = '';

/** Now as an ISO 8601 string (UTC, milliseconds). */
export function isoNow(): string {
  const t = performance.now();
  if (t - checkedAt >= RECHECK_MS) {
    offset = Date.now() - t;
    checkedAt = t;
  }
  const ms = Math.floor(offset + t);
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
