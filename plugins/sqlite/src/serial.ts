/**
 * Runs tasks one at a time, in the order they were queued. One embedded connection cannot
 * hold two transactions at once, and its driver blocks the event loop while it waits for a
 * lock, so everything on it goes through one of these.
 */
export class Serial {
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;

  /** True when nothing is queued or running: a caller may go straight through. */
  get idle(): boolean {
    return this.pending === 0;
  }

  run<T>(task: () => T | Promise<T>): Promise<T> {
    this.pending++;
    const result = this.tail.then(task);
    const done = () => { this.pending--; };
    this.tail = result.then(done, done);
    return result;
  }
}
