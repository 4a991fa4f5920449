import type { DatabaseTx, SqlParams } from '@oryxos/contracts';

/** A write queued with {@link DeferredWrites.add}; `onError` hears why it could not be written. */
export interface Pending { sql: string; params?: SqlParams; onError?: (error: unknown) => void }

/**
 * Writes that may wait for the connection's next transaction: an observer's rows (the audit
 * trail's) ride along with the write that follows them (the session's next message) and commit
 * with it, atomically, so a loop step costs one transaction per message instead of one per
 * message and per audit row. When no transaction comes first, `flush` writes them in one of their
 * own on the next turn of the event loop, so a row never waits longer than that.
 *
 * A deferred statement that fails is reported to its `onError` and does not fail the transaction
 * it joined; a transaction that rolls back puts the rows it carried back in the queue.
 */
export class DeferredWrites {
  private queue: Pending[] = [];
  private timer: NodeJS.Immediate | undefined;

  /** `flush` must open a transaction of its own (which drains the queue); its failure drops the rows, each told why. */
  constructor(private readonly flush: () => Promise<void>) {}

  get size(): number {
    return this.queue.length;
  }

  add(pending: Pending): void {
    this.queue.push(pending);
    this.schedule();
  }

  /** Writes the queued statements inside `tx`; returns them so a rollback can {@link restore} them. */
  async drain(tx: DatabaseTx): Promise<readonly Pending[]> {
    const batch = this.take();
    for (const p of batch) {
      try {
        await tx.execute(p.sql, p.params);
      } catch (error) {
        p.onError?.(error);
      }
    }
    return batch;
  }

  /** {@link drain} for a transaction whose statements run synchronously. */
  drainSync(tx: { execute(sql: string, params?: SqlParams): unknown }): readonly Pending[] {
    const batch = this.take();
    for (const p of batch) {
      try {
        tx.execute(p.sql, p.params);
      } catch (error) {
        p.onError?.(error);
      }
    }
    return batch;
  }

  /** Back to the front of the queue: the transaction that carried them rolled back. */
  restore(batch: readonly Pending[]): void {
    if (batch.length === 0) return;
    this.queue = [...batch, ...this.queue];
    this.schedule();
  }

  /** Empties the queue; each row hears `error` (the connection closed before it was written). */
  fail(error: unknown): void {
    for (const p of this.take()) p.onError?.(error);
  }

  /** No timer may keep a closed connection's process alive. */
  cancel(): void {
    if (this.timer) clearImmediate(this.timer);
    this.timer = undefined;
  }

  private take(): Pending[] {
    const batch = this.queue;
    this.queue = [];
    return batch;
  }

  private schedule(): void {
    this.timer ??= setImmediate(() => {
      this.timer = undefined;
      if (this.queue.length) void this.flush().catch((error) => this.fail(error));
    });
  }
}
