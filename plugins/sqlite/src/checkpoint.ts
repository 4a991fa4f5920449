/**
 * Pages written to the WAL before a commit also checkpoints them into the database file: a
 * bound (~40 MB) for write bursts the two-second timer below does not catch in time. SQLite's
 * default, 1,000, checkpointed several times a second under a busy loop, each time stalling the
 * commit that crossed it on an fsync of the main file (append p95 at 10,000 messages 297 µs →
 * 4,488 µs in bench/sqlite.ts); the time bound keeps the main file as close behind.
 */
export const WAL_CHECKPOINT_PAGES = 10_000;
/** A connection that has committed nothing for this long checkpoints (PASSIVE). */
export const IDLE_CHECKPOINT_MS = 250;
/** While commits keep coming, a PASSIVE checkpoint at least this often. */
export const MAX_CHECKPOINT_MS = 2000;
/** While commits keep coming, the idle listeners (the high-water mark) hear at most this often. */
const BUSY_NOTIFY_MS = 1000;

/**
 * Keeps the database whole in its main file: a PASSIVE checkpoint (it never waits for readers
 * or writers; it copies what it can) when the connection has been idle for
 * {@link IDLE_CHECKPOINT_MS}, at least every {@link MAX_CHECKPOINT_MS} while it is busy, and at
 * close; SQLite's own `wal_autocheckpoint` bounds the WAL by pages in between. A backup of the
 * main file alone, or a lost `-wal` file, then misses at most the last moments, never the whole
 * database. `onNotify` listeners (the high-water mark) hear after each idle checkpoint and at most
 * once a second while commits keep coming.
 *
 * @example
 * const checkpoints = new Checkpoints(() => db.query('PRAGMA wal_checkpoint(PASSIVE)'));
 * checkpoints.committed(); // after each COMMIT
 * await checkpoints.close();
 */
export class Checkpoints {
  private idle: NodeJS.Timeout | undefined;
  private lastCheckpoint = Date.now();
  private lastNotify = 0;
  private dirty = false;
  private closed = false;
  private running: Promise<void> | undefined;
  /** A checkpoint already waits for the next turn of the event loop. */
  private checkpointSoon = false;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly checkpoint: () => Promise<unknown>, private readonly warn: (message: string) => void = () => {}) {}

  /** Counts a commit: re-arms the idle timer; checkpoints now when the last one is too old. */
  committed(): void {
    if (this.closed) return;
    this.dirty = true;
    // One timer for the connection's life, pushed back by every commit (a fired one re-arms).
    if (this.idle) this.idle.refresh();
    else (this.idle = setTimeout(() => { void this.run(); }, IDLE_CHECKPOINT_MS)).unref();
    // One checkpoint waits for the next turn at most: commits that come without one (a run whose
    // every step resolves at once) queued one each, all held until it came (~190 bytes a commit).
    const now = Date.now();
    if (now - this.lastCheckpoint >= MAX_CHECKPOINT_MS && !this.checkpointSoon) {
      this.checkpointSoon = true;
      setImmediate(() => { this.checkpointSoon = false; void this.run(); });
    }
    if (now - this.lastNotify >= BUSY_NOTIFY_MS) {
      this.lastNotify = now;
      setImmediate(() => this.notify());
    }
  }

  /** Listens for idle moments (after the idle checkpoint) and for busy seconds; returns the unsubscribe. */
  onNotify(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The last checkpoint, then no more timers. */
  async close(): Promise<void> {
    clearTimeout(this.idle);
    if (this.closed) return;
    await this.running;
    if (this.dirty) await this.run();
    this.closed = true;
  }

  private run(): Promise<void> {
    if (this.closed || !this.dirty) return Promise.resolve();
    if (this.running) return this.running;
    this.dirty = false;
    this.lastCheckpoint = Date.now();
    this.running = this.checkpoint().then(() => {}, (error) => {
      // A checkpoint that cannot run now (the disk is full, the file went read-only) is retried at the next idle moment.
      this.dirty = true;
      this.warn(`the WAL checkpoint failed: ${(error as Error).message}`);
    }).finally(() => {
      this.running = undefined;
      this.notify();
    });
    return this.running;
  }

  private notify(): void {
    for (const listener of this.listeners) {
      try { listener(); } catch { /* a listener's own failure is its own */ }
    }
  }
}
