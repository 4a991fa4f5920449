/** The SQL database service and the migrations each plugin registers through it. */
export type SqlValue = string | number | bigint | boolean | null | Uint8Array;
export type SqlParams = SqlValue[] | Record<string, SqlValue>;

/** The SQL dialect a database service speaks. */
export type SqlDialect = 'sqlite' | 'postgres';

/**
 * One step of a plugin's schema. Versions only grow, per owner; a shipped migration is never
 * edited. The statements are one list for every dialect, or one list per dialect.
 *
 * @example
 * const MIGRATIONS: Migration[] = [
 *   { version: 1, name: 'notes', statements: ['CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL)'] },
 * ];
 */
export interface Migration {
  version: number;
  name: string;
  statements: readonly string[] | Partial<Record<SqlDialect, readonly string[]>>;
}

/** What a transaction callback gets: the statements of the database, without the rest. */
export type DatabaseTx = Pick<Database, 'url' | 'dialect' | 'execute' | 'query'>;

/** One owner's schema, as {@link Database.inspect} reports it. */
export interface SchemaState {
  owner: string;
  /** The version recorded in the database when this process opened it (0: none). */
  database: number;
  /** The newest version the code that asked for it knows. */
  code: number;
  /** Versions this process applied. */
  applied: number[];
  /** Versions neither recorded nor applied yet. */
  pending: { version: number; name: string }[];
}

/** One problem the engine's own consistency check found. */
export interface IntegrityProblem {
  /** What is damaged: the file's `header`, a `table`, an `index`, or the `file` as a whole (SQLite names no b-tree). */
  kind: 'header' | 'table' | 'index' | 'file';
  /** The table or index (`messages`, `sessions_by_updated`), when the check names one. */
  name?: string;
  detail: string;
}

/** What {@link Database.inspect} found. */
export interface DatabaseReport {
  dialect: SqlDialect;
  /** The URL, secrets removed. */
  url: string;
  /** Each owner that asked this process to migrate it, in the order they asked. */
  owners: SchemaState[];
  /** Every owner the database has versions for, also those no enabled plugin owns. */
  recorded: Record<string, number>;
  /** The engine's own check (SQLite's `quick_check`), when asked for and the engine has one. */
  integrity?: {
    ok: boolean;
    /** Which check ran (`quick_check`). */
    check: string;
    problems: IntegrityProblem[];
    /** The command that repairs what was found, when one can (`oryx db repair`). */
    repair?: string;
  };
  /** What the store noticed and a person should know (a database older than one seen here), each with its code. */
  warnings: { code: string; message: string; hint?: string }[];
}

/**
 * The SQL database service. The same SQL runs on the embedded libsql file and on a libsql
 * server; every method is async so every driver fits. Each plugin owns its tables and
 * registers their migrations with {@link Database.migrate} from its `init` tap.
 */
export interface Database {
  /** The URL it was opened with (secrets removed). */
  readonly url: string;
  readonly dialect: SqlDialect;
  execute(sql: string, params?: SqlParams): Promise<{ rowsAffected: number; lastInsertRowid?: number | bigint }>;
  query<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]>;
  /** Runs `fn` in one transaction: all of it commits or none of it does. */
  transaction<T>(fn: (tx: DatabaseTx) => Promise<T>): Promise<T>;
  /**
   * Applies `owner`'s pending migrations in version order, in one transaction, recorded in
   * `schema_migrations` under the owner's name (a plugin passes its own name). A database that
   * holds a newer version for the owner than the code knows is refused, untouched. Returns
   * the versions applied.
   *
   * @example
   * kernel.hooks.init.tapPromise('notes', async () => { await kernel.service('database').migrate('notes', MIGRATIONS); });
   */
  migrate(owner: string, migrations: readonly Migration[]): Promise<number[]>;
  /**
   * What the database holds, applying nothing: each owner's schema against the code that asked
   * for it (a read-only process defers migrations to the first use, so nothing is applied), the
   * engine's consistency check with `integrity`, and the store's warnings. `oryx doctor` reads it.
   *
   * @example
   * const report = await kernel.service('database').inspect({ integrity: true });
   * for (const p of report.integrity?.problems ?? []) console.log(p.kind, p.name, p.detail);
   */
  inspect(options?: { integrity?: boolean }): Promise<DatabaseReport>;
  /**
   * A write that may wait for this database's next transaction and commit with it (else within
   * one turn of the event loop): an observer's row, such as the audit trail's, rides with the
   * session's next message instead of costing a commit of its own — on SQLite about 15 % of a
   * loop step's CPU, and one WAL page a step. Reads through the service see it at once; `onError`
   * hears why it could not be written. An engine whose commits cost little leaves it out, and its
   * callers `execute` instead.
   *
   * @example
   * if (db.defer) db.defer(INSERT_ROW, params, warn); else await db.execute(INSERT_ROW, params);
   */
  defer?(sql: string, params?: SqlParams, onError?: (error: unknown) => void): void;
  /**
   * Writes a consistent copy of the whole database to `file` while it is in use (SQLite:
   * `VACUUM INTO`). Engines whose copies are made by their own tools (PostgreSQL: `pg_dump`) leave it out.
   */
  backup?(file: string): Promise<{ file: string; bytes: number }>;
}
