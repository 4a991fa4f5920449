import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { DatabaseTx, SqlParams } from '@oryxos/contracts';
import { isOryxError } from '@oryxos/provider-spec';
import type { StoreDatabase, SyncTx } from '@oryxos/sql-store';
import type { Client, InArgs, Transaction } from '@libsql/client';
import type LibsqlDatabase from 'libsql';
import { Checkpoints, WAL_CHECKPOINT_PAGES } from './checkpoint.ts';
import { DeferredWrites, type Pending } from './deferred.ts';
import { loadLibsql } from './load-libsql.ts';
import { openFailure, sqlFailure } from './driver-errors.ts';
import { sqliteError } from './errors.ts';
import { Serial } from './serial.ts';
import { fromDriverValue, toDriverParams } from './sql-values.ts';
import { readOnlyUri } from './read-only.ts';
import { displayUrl, type DatabaseTarget } from './url.ts';
import { WalSync } from './wal-sync.ts';

type Tx = DatabaseTx;
export type { SyncTx };

/** The transaction an async context is inside; `active` turns false at commit or rollback. */
interface TxScope { view: Tx; active: boolean }
type ExecuteResult = Awaited<ReturnType<DatabaseTx['execute']>>;

/** A connection: the statements and transactions of the `database` service (the plugin adds the rest), which driver, and closing it. */
export interface OpenDatabase extends StoreDatabase {
  readonly driver: 'libsql' | 'client';
  /** True when the file was opened read-only (it cannot be written: see read-only.ts); every write fails with ORYX_E_SQLITE_READONLY. */
  readonly readOnly: boolean;
  /** Idle moments and busy seconds of the connection (after its checkpoints): what the high-water mark listens to. */
  onIdle(listener: () => void): () => void;
  /** A consistent copy of the whole database in `file` (`VACUUM INTO`), while others keep writing. */
  backup(file: string): Promise<void>;
  /**
   * Queues a write that may wait for this connection's next transaction and commit with it
   * (see {@link DeferredWrites}); a read on this connection sees it. `onError` hears why it
   * could not be written.
   */
  defer(sql: string, params?: SqlParams, onError?: (error: unknown) => void): void;
  /**
   * A write transaction whose work is synchronous (the embedded driver only): `BEGIN IMMEDIATE`,
   * the deferred rows, `fn`, `COMMIT`, in one go, without a promise per statement or a tracked
   * async context (`fn` cannot await, so nothing else can run inside it). Queued behind the
   * connection's other work like {@link Database.transaction}; inside one, `fn` joins it.
   */
  writeSync?<T>(fn: (tx: SyncTx) => T): Promise<T>;
  /** Waits for queued work, checkpoints, then closes the connection. Idempotent. */
  close(): Promise<void>;
}

export interface OpenOptions {
  /** `libsql` = the synchronous embedded driver; `client` = @libsql/client. */
  driver: 'libsql' | 'client';
  authToken?: string;
  busyTimeoutMs: number;
}

/**
 * Opens a database. A file is created (with its folder) when missing; its connection gets
 * `synchronous=NORMAL`, a WAL checkpoint every {@link WAL_CHECKPOINT_PAGES} pages (and when idle,
 * see checkpoint.ts), a busy timeout and foreign keys. A file that cannot be written is opened
 * read-only, creating no `-wal`/`-shm` file (read-only.ts). WAL is a separate step
 * ({@link enableWal}) because it writes to the file, which must wait until the schema version
 * has been found acceptable. WAL with `synchronous=NORMAL` survives a killed process without
 * losing a committed transaction.
 *
 * @example
 * const db = await openDatabase({ kind: 'file', path: '/tmp/x.db' }, { driver: 'libsql', busyTimeoutMs: 5000 });
 * await enableWal(db);
 * await db.execute('CREATE TABLE t (a INTEGER)');
 * await db.close();
 */
export async function openDatabase(target: DatabaseTarget, options: OpenOptions): Promise<OpenDatabase> {
  if (target.kind !== 'file') return connect(target, options);
  // One connection per file and driver in a process: a second connection would wait for the
  // first one's write lock inside a synchronous call, blocking the event loop the first one
  // needs to commit (two kernels on one file, as tests and benchmarks do). The file is known by
  // its real path: two names of it (an eval case's project links the project's database) are one.
  const key = `${options.driver}:${await realFile(target.path)}`;
  let entry = shared.get(key);
  if (!entry) {
    entry = { connection: connect(target, options), refs: 0 };
    shared.set(key, entry);
    entry.connection.catch(() => { if (shared.get(key) === entry) shared.delete(key); });
  }
  entry.refs++;
  let connection: OpenDatabase;
  try {
    connection = await entry.connection;
  } catch (error) {
    entry.refs--;
    throw error;
  }
  const owner = entry;
  return new SharedHandle(connection, async () => {
    if (--owner.refs > 0) return;
    if (shared.get(key) === owner) shared.delete(key);
    await connection.close();
  });
}

const shared = new Map<string, { connection: Promise<OpenDatabase>; refs: number }>();

/** The path of the file itself, links resolved (its folder's, for a file not made yet); `:memory:` as it is. */
async function realFile(file: string): Promise<string> {
  if (file === ':memory:') return file;
  const real = await realpath(file).catch(() => undefined);
  if (real) return real;
  const folder = await realpath(path.dirname(file)).catch(() => path.dirname(path.resolve(file)));
  return path.join(folder, path.basename(file));
}

/** One user's handle on a shared connection; closing it closes the connection with the last user. */
class SharedHandle implements OpenDatabase {
  private closed = false;
  constructor(private readonly connection: OpenDatabase, private readonly release: () => Promise<void>) {
    if (connection.writeSync) this.writeSync = (fn) => (this.closed ? Promise.reject(closedError(this.url)) : connection.writeSync!(fn));
  }
  get driver() { return this.connection.driver; }
  get url() { return this.connection.url; }
  readonly dialect = 'sqlite';
  execute(sql: string, params?: SqlParams) { return this.closed ? Promise.reject(closedError(this.url)) : this.connection.execute(sql, params); }
  query<T = Record<string, unknown>>(sql: string, params?: SqlParams) { return this.closed ? Promise.reject(closedError(this.url)) : this.connection.query<T>(sql, params); }
  transaction<T>(fn: (tx: Tx) => Promise<T>) { return this.closed ? Promise.reject(closedError(this.url)) : this.connection.transaction(fn); }
  defer(sql: string, params?: SqlParams, onError?: (error: unknown) => void) {
    if (this.closed) onError?.(closedError(this.url));
    else this.connection.defer(sql, params, onError);
  }
  readonly writeSync?: OpenDatabase['writeSync'];
  get readOnly() { return this.connection.readOnly; }
  onIdle(listener: () => void) { return this.connection.onIdle(listener); }
  backup(file: string) { return this.closed ? Promise.reject(closedError(this.url)) : this.connection.backup(file); }
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.release();
  }
}

async function connect(target: DatabaseTarget, options: OpenOptions): Promise<OpenDatabase> {
  const shown = target.kind === 'file' ? `file:${target.path}` : displayUrl(target.url);
  try {
    if (target.kind === 'file' && target.path !== ':memory:') await mkdir(path.dirname(target.path), { recursive: true });
    // A file this process cannot write is read without creating files beside it (read-only.ts).
    const readOnly = target.kind === 'file' && target.path !== ':memory:' ? await readOnlyUri(target.path) : undefined;
    if (options.driver === 'libsql') {
      if (target.kind !== 'file') throw new Error('the embedded libsql driver opens only file: URLs');
      const Libsql = loadLibsql();
      const db = new Libsql(readOnly ?? target.path);
      const opened = new EmbeddedDatabase(shown, db, !!readOnly, target.path === ':memory:' || readOnly ? undefined : new WalSync(`${target.path}-wal`));
      try {
        db.exec(`PRAGMA busy_timeout = ${Math.floor(options.busyTimeoutMs)}`);
        db.exec('PRAGMA synchronous = NORMAL');
        db.exec(`PRAGMA wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
        db.exec('PRAGMA foreign_keys = ON');
        db.prepare('SELECT 1').all();
      } catch (error) {
        db.close();
        throw error;
      }
      return opened;
    }
    const { createClient } = await import('@libsql/client');
    const client = createClient({
      url: target.kind === 'file' ? (readOnly ?? `file:${target.path}`) : target.url,
      authToken: options.authToken,
      ...(target.kind === 'file' ? { timeout: options.busyTimeoutMs } : {}),
      intMode: 'number',
    });
    const opened = new ClientDatabase(shown, client, target.kind === 'file', !!readOnly);
    try {
      if (target.kind === 'file') {
        await client.execute('PRAGMA synchronous = NORMAL');
        await client.execute(`PRAGMA wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
        await client.execute('PRAGMA foreign_keys = ON');
      }
      await client.execute('SELECT 1');
    } catch (error) {
      client.close();
      throw error;
    }
    return opened;
  } catch (error) {
    if (isOryxError(error)) throw error;
    throw openFailure(error, shown);
  }
}

/**
 * Turns WAL on (files only); called once the schema version was found acceptable, because it
 * writes to the file.
 *
 * @example
 * const db = await openDatabase(target, options);
 * await enableWal(db);
 */
export async function enableWal(db: OpenDatabase): Promise<void> {
  if (db.url.startsWith('file:') && !db.readOnly) await db.query('PRAGMA journal_mode = WAL');
}

function closedError(url: string): Error {
  return sqliteError('ORYX_E_SQLITE_CLOSED', `The database ${url} is closed`);
}

function endedTxError(): Error {
  return sqliteError('ORYX_E_SQLITE_CLOSED', 'This transaction has already ended', {
    hint: 'Use the tx handle only inside the transaction callback.',
  });
}

/**
 * Which transaction an async context is inside. Node's AsyncLocalStorage, while enabled, runs a
 * hook on every promise the process creates (the whole loop's, not only the database's: ~10 µs
 * of a loop step's ~30 in memory). So it is enabled only while a transaction is open here, and
 * disabled again when the last one ends; between transactions no context is inside one anyway.
 * A context created inside a transaction that outlives it (a timer) finds it no longer active.
 */
class TxContext {
  private readonly als = new AsyncLocalStorage<TxScope>();
  private open = 0;

  current(): Tx | undefined {
    if (this.open === 0) return undefined;
    const scope = this.als.getStore();
    return scope?.active ? scope.view : undefined;
  }

  async run<T>(scope: TxScope, fn: () => Promise<T>): Promise<T> {
    this.open++;
    try {
      return await this.als.run(scope, fn);
    } finally {
      if (--this.open === 0) this.als.disable();
    }
  }

  exit<T>(fn: () => T): T {
    return this.open === 0 ? fn() : this.als.exit(fn);
  }
}

type Statement = ReturnType<LibsqlDatabase.Database['prepare']>;

/** The embedded driver: one synchronous connection, every call queued through {@link Serial}. */
class EmbeddedDatabase implements OpenDatabase {
  readonly driver = 'libsql' as const;
  private readonly serial = new Serial();
  private readonly statements = new Map<string, Statement>();
  private readonly tx = new TxContext();
  private readonly deferred = new DeferredWrites(() => this.flush());
  private readonly checkpoints: Checkpoints;
  /** The statements of the open transaction, to name them when its COMMIT fails. */
  private writes: string[] | undefined;
  private closed = false;

  readonly dialect = 'sqlite';
  constructor(readonly url: string, private readonly db: LibsqlDatabase.Database, readonly readOnly: boolean, private readonly wal?: WalSync) {
    this.checkpoints = new Checkpoints(() => (wal ? this.query('PRAGMA wal_checkpoint(PASSIVE)') : Promise.resolve()));
  }

  execute(sql: string, params?: SqlParams): Promise<ExecuteResult> {
    const current = this.current();
    if (current) return current.execute(sql, params);
    if (this.deferred.size) return carryDeferred(sql) ? this.ownSync((tx) => tx.execute(sql, params)) : this.flush().then(() => this.execute(sql, params));
    return this.queued(() => {
      const result = this.run(sql, params);
      this.checkpoints.committed();
      return result;
    });
  }

  onIdle(listener: () => void): () => void {
    return this.checkpoints.onNotify(listener);
  }

  /** `VACUUM INTO`: a read transaction that copies every page it sees, so the copy is one consistent moment. */
  async backup(file: string): Promise<void> {
    if (this.deferred.size) await this.flush();
    await this.queued(() => this.run('VACUUM INTO ?', [file]));
  }

  query<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    const current = this.current();
    if (current) return current.query<T>(sql, params);
    if (this.deferred.size) return this.flush().then(() => this.query<T>(sql, params));
    return this.queued(() => this.all<T>(sql, params));
  }

  defer(sql: string, params?: SqlParams, onError?: (error: unknown) => void): void {
    if (this.closed) onError?.(closedError(this.url));
    else this.deferred.add({ sql, params, onError });
  }

  /**
   * Commits the deferred writes in a transaction of their own (outside any the caller is in), so
   * a statement outside a transaction — a read, a PRAGMA — runs after them, as it did before.
   */
  private flush(): Promise<void> {
    return this.ownSync(() => {});
  }

  async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    // A transaction opened inside another one joins it: there is one connection.
    const current = this.current();
    if (current) return fn(current);
    return this.serial.run(async () => {
      if (this.closed) throw closedError(this.url);
      const scope: TxScope = { active: true, view: {
        url: this.url,
        dialect: 'sqlite',
        execute: async (sql, params) => { if (!scope.active) throw endedTxError(); return this.run(sql, params); },
        query: async <R>(sql: string, params?: SqlParams) => { if (!scope.active) throw endedTxError(); return this.all<R>(sql, params); },
      } };
      this.exec('BEGIN IMMEDIATE');
      this.writes = [];
      let carried: readonly Pending[] = [];
      try {
        if (this.deferred.size) carried = await this.deferred.drain(scope.view);
        const result = await this.tx.run(scope, () => fn(scope.view));
        this.commit();
        return result;
      } catch (error) {
        this.rollback(carried);
        throw error;
      } finally {
        scope.active = false;
      }
    });
  }

  writeSync<T>(fn: (tx: SyncTx) => T): Promise<T> {
    // Inside a transaction of this connection: its statements run straight away too.
    return this.current() ? this.queuedNow(() => fn(this.syncTx)) : this.ownSync(fn);
  }

  /** A synchronous write transaction of its own, never joining one the caller is in. */
  private ownSync<T>(fn: (tx: SyncTx) => T): Promise<T> {
    return this.serial.idle ? this.queuedNow(() => this.commitSync(fn)) : this.serial.run(() => this.commitSync(fn));
  }

  private readonly syncTx: SyncTx = { execute: (sql, params) => this.run(sql, params) };

  private commitSync<T>(fn: (tx: SyncTx) => T): T {
    if (this.closed) throw closedError(this.url);
    this.exec('BEGIN IMMEDIATE');
    this.writes = [];
    const carried = this.deferred.size ? this.deferred.drainSync(this.syncTx) : [];
    try {
      const result = fn(this.syncTx);
      this.commit();
      return result;
    } catch (error) {
      this.rollback(carried);
      throw error;
    }
  }

  private commit(): void {
    const writes = this.writes;
    this.writes = undefined;
    // A full disk (or a read-only file) shows at COMMIT, when the pages reach the WAL: say what was being written.
    if (this.closed) throw closedError(this.url);
    try { this.db.exec('COMMIT'); } catch (error) { throw sqlFailure(error, committing(writes)); }
    this.wal?.committed();
    this.checkpoints.committed();
  }

  /** Undoes the open transaction, if the connection has not already; the deferred rows it carried go back in the queue. */
  private rollback(carried: readonly Pending[]): void {
    this.writes = undefined;
    if (this.db.inTransaction) {
      try { this.db.exec('ROLLBACK'); } catch { /* the connection already rolled back */ }
    }
    this.deferred.restore(carried);
  }

  /** The transaction this async context is inside, if it is still open (timers started in one outlive it). */
  private current(): Tx | undefined {
    return this.tx.current();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await flushBeforeClose(this.deferred, () => this.flush());
    await this.checkpoints.close();
    await this.serial.run(() => {
      if (this.closed) return;
      this.closed = true;
      this.wal?.close();
      this.statements.clear();
      this.db.close();
    });
  }

  /** Straight through when nothing is queued (the common case), else behind the queue. */
  private queued<T>(task: () => T): Promise<T> {
    return this.serial.idle ? this.queuedNow(task) : this.serial.run(task);
  }

  private queuedNow<T>(task: () => T): Promise<T> {
    try { return Promise.resolve(task()); } catch (error) { return Promise.reject(error); }
  }

  private prepare(sql: string): Statement {
    if (this.closed) throw closedError(this.url);
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      if (this.statements.size >= 200) this.statements.delete(this.statements.keys().next().value!);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  private exec(sql: string): void {
    if (this.closed) throw closedError(this.url);
    try { this.db.exec(sql); } catch (error) { throw sqlFailure(error, sql); }
  }

  private run(sql: string, params?: SqlParams): ExecuteResult {
    this.writes?.push(sql);
    try {
      const r = this.prepare(sql).run(toDriverParams(params));
      return { rowsAffected: r.changes, lastInsertRowid: r.lastInsertRowid };
    } catch (error) {
      throw sqlFailure(error, sql);
    }
  }

  private all<T>(sql: string, params?: SqlParams): T[] {
    try {
      const rows = this.prepare(sql).all(toDriverParams(params)) as Record<string, unknown>[];
      for (const row of rows) for (const key in row) row[key] = fromDriverValue(row[key]);
      return rows as T[];
    } catch (error) {
      throw sqlFailure(error, sql);
    }
  }
}

/**
 * `@libsql/client`: a libsql server, or a file. On a file every call is queued like the
 * embedded driver, because a second pooled connection waiting on the first one's write lock
 * would block the event loop the first one needs to finish.
 */
class ClientDatabase implements OpenDatabase {
  readonly driver = 'client' as const;
  private readonly serial = new Serial();
  private readonly tx = new TxContext();
  private readonly deferred = new DeferredWrites(() => this.flush());
  private readonly checkpoints: Checkpoints;
  private closed = false;

  readonly dialect = 'sqlite';
  constructor(readonly url: string, private readonly client: Client, private readonly local: boolean, readonly readOnly: boolean) {
    this.checkpoints = new Checkpoints(() => (local && !readOnly ? this.query('PRAGMA wal_checkpoint(PASSIVE)') : Promise.resolve()));
  }

  onIdle(listener: () => void): () => void {
    return this.checkpoints.onNotify(listener);
  }

  async backup(file: string): Promise<void> {
    await this.execute('VACUUM INTO ?', [file]);
  }

  execute(sql: string, params?: SqlParams): Promise<ExecuteResult> {
    const current = this.current();
    if (current) return current.execute(sql, params);
    if (this.deferred.size) return carryDeferred(sql) ? this.transaction((tx) => tx.execute(sql, params)) : this.flush().then(() => this.execute(sql, params));
    return this.queued(async () => {
      const result = toExecuteResult(await this.send(this.client, sql, params));
      this.checkpoints.committed();
      return result;
    });
  }

  query<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    const current = this.current();
    if (current) return current.query<T>(sql, params);
    if (this.deferred.size) return this.flush().then(() => this.query<T>(sql, params));
    return this.queued(async () => toRows<T>(await this.send(this.client, sql, params)));
  }

  defer(sql: string, params?: SqlParams, onError?: (error: unknown) => void): void {
    if (this.closed) onError?.(closedError(this.url));
    else this.deferred.add({ sql, params, onError });
  }

  /**
   * Commits the deferred writes in a transaction of their own (outside any the caller is in), so
   * a statement outside a transaction — a read, a PRAGMA — runs after them, as it did before.
   */
  private flush(): Promise<void> {
    return this.tx.exit(() => this.transaction(async () => {}));
  }

  async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const current = this.current();
    if (current) return fn(current);
    return this.queued(async () => {
      let handle: Transaction;
      try { handle = await this.client.transaction('write'); } catch (error) { throw sqlFailure(error, 'BEGIN IMMEDIATE'); }
      const writes: string[] = [];
      const scope: TxScope = { active: true, view: {
        url: this.url,
        dialect: 'sqlite',
        execute: async (sql, params) => { if (!scope.active) throw endedTxError(); writes.push(sql); return toExecuteResult(await this.send(handle, sql, params)); },
        query: async <R>(sql: string, params?: SqlParams) => { if (!scope.active) throw endedTxError(); return toRows<R>(await this.send(handle, sql, params)); },
      } };
      let carried: readonly Pending[] = [];
      try {
        if (this.deferred.size) carried = await this.deferred.drain(scope.view);
        const result = await this.tx.run(scope, () => fn(scope.view));
        try { await handle.commit(); } catch (error) { throw sqlFailure(error, committing(writes)); }
        this.checkpoints.committed();
        return result;
      } catch (error) {
        if (!handle.closed) await handle.rollback().catch(() => {});
        this.deferred.restore(carried);
        throw error;
      } finally {
        scope.active = false;
        handle.close();
      }
    });
  }

  private current(): Tx | undefined {
    return this.tx.current();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await flushBeforeClose(this.deferred, () => this.flush());
    await this.checkpoints.close();
    this.closed = true;
    await this.serial.run(() => this.client.close());
  }

  private queued<T>(task: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(closedError(this.url));
    return this.local ? this.serial.run(task) : task();
  }

  private async send(target: Client | Transaction, sql: string, params?: SqlParams) {
    try {
      return await target.execute({ sql, args: toDriverParams(params) as InArgs });
    } catch (error) {
      throw sqlFailure(error, sql);
    }
  }
}

/** `COMMIT` named by what it commits: its first statements, shortened (`COMMIT of UPDATE sessions …; INSERT INTO messages …`). */
function committing(writes: readonly string[] | undefined): string {
  if (!writes?.length) return 'COMMIT';
  const shown = writes.slice(0, 3).map((sql) => sql.replace(/\s+/g, ' ').trim().slice(0, 48));
  return `COMMIT of ${shown.join('; ')}${writes.length > 3 ? `; and ${writes.length - 3} more` : ''}`;
}

/**
 * Whether a write outside a transaction may commit together with the deferred rows, in one
 * transaction instead of two: a plain row write may; anything else (a PRAGMA, DDL, VACUUM) runs
 * after them on its own, as it would have.
 */
function carryDeferred(sql: string): boolean {
  return /^\s*(?:INSERT|UPDATE|DELETE)\b/i.test(sql);
}

/** Writes what is still deferred; what cannot be written hears why. */
async function flushBeforeClose(deferred: DeferredWrites, flush: () => Promise<unknown>): Promise<void> {
  deferred.cancel();
  if (deferred.size) await flush().catch((error) => deferred.fail(error));
  deferred.cancel();
}

type ClientResult = Awaited<ReturnType<Client['execute']>>;

function toExecuteResult(rs: ClientResult): ExecuteResult {
  return { rowsAffected: rs.rowsAffected, lastInsertRowid: rs.lastInsertRowid };
}

function toRows<T>(rs: ClientResult): T[] {
  return rs.rows.map((row) => {
    const out: Record<string, unknown> = {};
    rs.columns.forEach((column, i) => { out[column] = fromDriverValue(row[i]); });
    return out as T;
  });
}
