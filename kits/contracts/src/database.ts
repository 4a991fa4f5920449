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

/** What a transaction callback gets: the database without `transaction` and `migrate`. */
export type DatabaseTx = Omit<Database, 'transaction' | 'migrate'>;

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
}
