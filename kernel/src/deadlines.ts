/**
 * Time limits that are nearly always cancelled long before they are due: a tool call's (one
 * per call), a run's (one per run). Node makes and drops a timer list, and reorders its queue
 * of lists, whenever the only timer of a duration is set or cleared, which on the loop's hot
 * path — one call after another, each with the same limit — cost more than the rest of the
 * call's bookkeeping. Here the limits of one duration wait in a queue (they fall due in the
 * order they were set) under one Node timer, which wakes at the first one due and skips those
 * cancelled meanwhile.
 */

/** A time limit set with {@link deadline}. */
export interface Deadline {
  /** Cancels it; nothing happens when it was cancelled or fired already. */
  cancel(): void;
}

/** Node's timers take at most 2^31-1 ms; a longer wait is made of several. */
const MAX_TIMER_MS = 2 ** 31 - 1;

class Entry implements Deadline {
  constructor(private readonly lane: Lane, readonly at: number, public fire: (() => void) | undefined) {}

  cancel(): void {
    if (!this.fire) return;
    this.fire = undefined;
    this.lane.ended();
  }
}

/** The limits of one duration (and one keep-alive choice), on one timer. */
class Lane {
  private queue: Entry[] = [];
  private head = 0;
  /** Limits set and neither cancelled nor fired. */
  private live = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly ms: number, private readonly keepAlive: boolean) {}

  add(fire: () => void): Entry {
    const entry = new Entry(this, performance.now() + this.ms, fire);
    this.queue.push(entry);
    this.live++;
    if (!this.timer) this.arm(this.ms);
    else if (this.live === 1 && this.keepAlive) this.timer.ref();
    return entry;
  }

  ended(): void {
    if (--this.live === 0) {
      // Nothing waits: the queue is let go, and the timer (due no later than anything set
      // from now on) stays set without keeping the process alive.
      this.queue = [];
      this.head = 0;
      this.timer?.unref();
    } else if (this.queue.length - this.head > 2 * this.live + 64) {
      this.queue = this.queue.slice(this.head).filter((e) => e.fire);
      this.head = 0;
    }
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.wake(), Math.min(Math.max(1, ms), MAX_TIMER_MS));
    if (!this.keepAlive || this.live === 0) this.timer.unref();
  }

  /** Fires what is due, in order, then waits for the next one still set. */
  private wake(): void {
    this.timer = undefined;
    const now = performance.now();
    while (this.head < this.queue.length) {
      const entry = this.queue[this.head]!;
      if (entry.fire && entry.at > now) {
        if (!this.timer) this.arm(entry.at - now); // a limit set by a fired one may have set it
        return;
      }
      this.head++;
      const fire = entry.fire;
      if (!fire) continue;
      entry.fire = undefined;
      this.live--;
      fire();
    }
    this.queue = [];
    this.head = 0;
  }
}

const lanes = new Map<number, Lane>();
const quietLanes = new Map<number, Lane>();

/**
 * Calls `fire` once `ms` have passed, unless cancelled first. `keepAlive: false` is
 * `setTimeout(…).unref()`: the limit alone does not keep the process running.
 *
 * @example
 * const limit = deadline(60_000, () => controller.abort());
 * try { return await work(); } finally { limit.cancel(); }
 */
export function deadline(ms: number, fire: () => void, options: { keepAlive?: boolean } = {}): Deadline {
  const keepAlive = options.keepAlive ?? true;
  const byMs = keepAlive ? lanes : quietLanes;
  let lane = byMs.get(ms);
  if (!lane) byMs.set(ms, lane = new Lane(ms, keepAlive));
  return lane.add(fire);
}
