import { AsyncLocalStorage } from 'node:async_hooks';
import type { DatabaseTx, SqlParams } from '@oryxos/contracts';
import type { Logger } from '@oryxos/kernel';
import type { StoreDatabase } from '@oryxos/sql-store';
import type { Options, PendingQuery, Row, Sql, TransactionSql } from 'postgres';
import { connectFailure, queryFailure } from './driver-errors.ts';
import { pgError } from './errors.ts';
import type { SslOption } from './options.ts';
import { numberPlaceholders, type Numbered } from './placeholders.ts';
import { displayUrl } from './url.ts';
import { bindParams, fromPgRow } from './values.ts';

type ExecuteResult = Awaited<ReturnType<DatabaseTx['execute']>>;
/** The transaction an async context is inside; `active` turns false at commit or rollback. */
interface TxScope { view: DatabaseTx; active: boolean }
type Client = Sql<Record<string, unknown>>;

/** How to reach the server and what each connection is set to. */
export interface PgConnectOptions {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  ssl?: SslOption;
  applicationName: string;
  /**
   * How long the client waits for any answer before it gives the connection up as lost and
   * opens fresh ones: a dropped network sends no error for many minutes otherwise. Default:
   * statementTimeoutMs + 5000 (60000 when statements never time out).
   */
  answerTimeoutMs?: number;
  /** `search_path` of every connection (`pg_temp`: a scratch schema that vanishes with the connection). */
  searchPath?: string;
  log?: Logger;
}

/** A connection pool: the statements and transactions of the `database` service (the plugin adds the rest), and closing it. */
export interface OpenPostgres extends StoreDatabase {
  /** Waits up to 5 s for running statements, then closes every connection. Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens a pool on a PostgreSQL server (postgres.js, loaded here) and checks that it answers.
 *
 * @example
 * const db = await openPostgres({ url: 'postgres://oryx:pw@localhost/oryx', poolSize: 5, statementTimeoutMs: 30_000, connectTimeoutMs: 10_000, applicationName: 'oryxos' });
 * const rows = await db.query('SELECT id FROM sessions WHERE agent = ?', ['assistant']);
 * await db.close();
 */
export async function openPostgres(options: PgConnectOptions): Promise<OpenPostgres> {
  const { default: postgres } = await import('postgres');
  const db = new PostgresDatabase(postgres as unknown as Connect, options);
  try {
    await db.ping();
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
  return db;
}

type Connect = (url: string, options: Partial<Options<Record<string, never>>>) => Client;

const BIGINT = 20;
const NUMERIC = 1700;

class PostgresDatabase implements OpenPostgres {
  readonly dialect = 'postgres' as const;
  readonly url: string;
  private client: Client;
  private readonly numbered = new Map<string, Numbered>();
  private readonly tx = new AsyncLocalStorage<TxScope>();
  private readonly answerTimeoutMs: number;
  private closed = false;

  constructor(private readonly connect: Connect, private readonly options: PgConnectOptions) {
    this.url = displayUrl(options.url);
    this.answerTimeoutMs = options.answerTimeoutMs ?? (options.statementTimeoutMs ? options.statementTimeoutMs + 5000 : 60_000);
    this.client = this.open();
  }

  /** A new pool. Integers come back as numbers (int8 and numeric too: counts and sums), as on SQLite. */
  private open(): Client {
    const o = this.options;
    return this.connect(o.url, {
      max: o.poolSize,
      connect_timeout: Math.max(1, Math.ceil(o.connectTimeoutMs / 1000)),
      idle_timeout: 300,
      prepare: true,
      fetch_types: false,
      ...(o.ssl !== undefined ? { ssl: o.ssl as Options<Record<string, never>>['ssl'] } : {}),
      onnotice: (notice) => o.log?.debug(`postgres: ${String(notice.message)}`),
      types: {
        bigint: { to: BIGINT, from: [BIGINT], serialize: (x: unknown) => String(x), parse: (x: string) => safeInteger(x) },
        numeric: { to: NUMERIC, from: [NUMERIC], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
      } as unknown as Record<string, never>,
      connection: {
        application_name: o.applicationName,
        statement_timeout: o.statementTimeoutMs,
        // a transaction whose client vanished (a dropped network) releases its locks after a minute
        idle_in_transaction_session_timeout: 60_000,
        ...(o.searchPath ? { search_path: o.searchPath } : {}),
      } as Options<Record<string, never>>['connection'],
    });
  }

  async ping(): Promise<void> {
    try {
      await this.deadline(this.client.unsafe('SELECT 1'), 'SELECT 1', this.options.connectTimeoutMs + 1000);
    } catch (error) {
      throw connectFailure((error as { cause?: unknown }).cause ?? error, this.url);
    }
  }

  execute(sql: string, params?: SqlParams): Promise<ExecuteResult> {
    const current = this.current();
    if (current) return current.execute(sql, params);
    return this.run(this.client, sql, params).then((r) => ({ rowsAffected: r.count ?? 0 }));
  }

  query<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    const current = this.current();
    if (current) return current.query<T>(sql, params);
    return this.run(this.client, sql, params).then((r) => rowsOf<T>(r));
  }

  /**
   * One transaction on one connection (READ COMMITTED). Inside it, the outer handle and a
   * nested transaction join it, as on SQLite. The wait for BEGIN and for COMMIT is bounded by
   * the answer timeout like every statement.
   */
  async transaction<T>(fn: (tx: DatabaseTx) => Promise<T>): Promise<T> {
    const current = this.current();
    if (current) return fn(current);
    if (this.closed) throw closedError(this.url);
    let started!: () => void;
    let committing!: () => void;
    const begun = new Promise<void>((resolve) => { started = resolve; });
    const ending = new Promise<void>((resolve) => { committing = resolve; });
    let inner: { error: unknown } | undefined;
    const outcome = this.client.begin(async (t: TransactionSql<Record<string, unknown>>) => {
      started();
      const scope: TxScope = { active: true, view: {
        url: this.url,
        dialect: 'postgres',
        execute: async (sql, params) => { if (!scope.active) throw endedTxError(); return { rowsAffected: (await this.run(t, sql, params)).count ?? 0 }; },
        query: async <R>(sql: string, params?: SqlParams) => { if (!scope.active) throw endedTxError(); return rowsOf<R>(await this.run(t, sql, params)); },
      } };
      try {
        const result = await this.tx.run(scope, () => fn(scope.view));
        committing();
        return result;
      } catch (error) {
        inner = { error };
        throw error;
      } finally {
        scope.active = false;
      }
    }) as Promise<T>;
    // BEGIN and COMMIT are no statements of ours to time: the waits for them are watched instead.
    const settled = outcome.then(() => {}, () => {});
    try {
      return await Promise.race([
        outcome,
        this.watch(Promise.resolve(), Promise.race([begun, settled]), 'BEGIN'),
        this.watch(ending, settled, 'COMMIT'),
      ]);
    } catch (error) {
      if (inner && error === inner.error) throw error;
      throw queryFailure(error, 'BEGIN … COMMIT', this.url);
    }
  }

  /** Rejects when `until` has not settled `answerTimeoutMs` after `from` resolved; never resolves. */
  private watch(from: Promise<void>, until: Promise<unknown>, what: string): Promise<never> {
    return new Promise<never>((_, reject) => {
      void from.then(() => {
        const timer = setTimeout(() => reject(this.lost(what, this.answerTimeoutMs)), this.answerTimeoutMs);
        timer.unref();
        void until.then(() => clearTimeout(timer));
      });
    });
  }

  private current(): DatabaseTx | undefined {
    const scope = this.tx.getStore();
    return scope?.active ? scope.view : undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.end({ timeout: 5 });
  }

  private async run(target: Client | TransactionSql<Record<string, unknown>>, sql: string, params?: SqlParams): Promise<Row[] & { count?: number }> {
    if (this.closed) throw closedError(this.url);
    let numbered = this.numbered.get(sql);
    if (!numbered) {
      numbered = numberPlaceholders(sql);
      if (this.numbered.size >= 500) this.numbered.delete(this.numbered.keys().next().value!);
      this.numbered.set(sql, numbered);
    }
    try {
      const values = bindParams(params, numbered.names, sql);
      return await this.deadline(target.unsafe(numbered.text, values as never[], { prepare: true }), sql, this.answerTimeoutMs);
    } catch (error) {
      throw queryFailure(error, sql, this.url);
    }
  }

  /** The query's result, or ORYX_E_PG_UNAVAILABLE when no answer came in time (the pool is then replaced). */
  private deadline<T>(query: PendingQuery<Row[]> | Promise<T>, sql: string, ms: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(this.lost(sql, ms)), ms);
      timer.unref();
      (query as Promise<T>).then((value) => { clearTimeout(timer); resolve(value); }, (error) => { clearTimeout(timer); reject(error); });
    });
  }

  /**
   * No answer in time: the connection is taken as lost (a network that drops packets sends no
   * error for many minutes). Its pool is closed at once, and a fresh one serves what comes next.
   */
  private lost(what: string, ms: number): Error {
    const old = this.client;
    if (!this.closed) {
      this.client = this.open();
      void old.end({ timeout: 0 }).catch(() => {});
    }
    return pgError('ORYX_E_PG_UNAVAILABLE', `The database ${this.url} did not answer within ${ms} ms (the network or the server is down); `
      + `the statement was not committed, the connections were reopened: ${what.replace(/\s+/g, ' ').trim().slice(0, 160)}`, {
      retryable: true, data: { timeoutMs: ms },
    });
  }
}

function rowsOf<T>(result: Row[]): T[] {
  const rows = new Array<T>(result.length);
  for (let i = 0; i < result.length; i++) rows[i] = fromPgRow(result[i] as Record<string, unknown>) as T;
  return rows;
}

function safeInteger(text: string): number | bigint {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : BigInt(text);
}

function closedError(url: string): Error {
  return pgError('ORYX_E_PG_CLOSED', `The database ${url} is closed`);
}

function endedTxError(): Error {
  return pgError('ORYX_E_PG_CLOSED', 'This transaction has already ended', { hint: 'Use the tx handle only inside the transaction callback.' });
}
