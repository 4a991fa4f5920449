import type { Database, DatabaseTx, SqlParams } from '@oryxos/contracts';

/** The statements of a {@link StoreDatabase.writeSync} transaction: each runs at once, synchronously. */
export interface SyncTx {
  execute(sql: string, params?: SqlParams): { rowsAffected: number; lastInsertRowid?: number | bigint };
}

/**
 * What the store needs of a driver: the statements and transactions of the `database` service
 * and, where the driver is synchronous (SQLite's embedded one), a write transaction whose work
 * runs in one go, without a promise per statement. An append uses it when it is there.
 */
export interface StoreDatabase extends DatabaseTx, Pick<Database, 'transaction'> {
  /**
   * `BEGIN IMMEDIATE`, `fn`, `COMMIT`, in one synchronous go (`fn` cannot await, so nothing else
   * runs inside it), queued behind the connection's other work like a transaction; inside an open
   * transaction of the same connection, `fn` joins it.
   */
  writeSync?<T>(fn: (tx: SyncTx) => T): Promise<T>;
}

/**
 * How a store plugin package opens a database by URL outside a kernel, for the store-neutral
 * `oryx db copy` (which opens both sides, each with its own engine's package, found by URL):
 * exported as `driver` from the package's entry.
 *
 * @example
 * export const driver: DatabaseDriver = { name: 'sqlite', handles: (url) => url.startsWith('file:'), open: (url, { root }) => openFile(url, root) };
 */
export interface DatabaseDriver {
  /** The store plugin (`sqlite`, `postgres`). */
  name: string;
  /** Whether the URL is one of this engine's (`file:`, `postgres:`). */
  handles(url: string): boolean;
  /** Opens it; a relative file path resolves against `root` (the folder of oryx.config.ts). */
  open(url: string, options: { root: string }): Promise<StoreDatabase & { close(): Promise<void> }>;
}
