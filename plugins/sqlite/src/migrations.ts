import type { DatabaseTx, Migration } from '@oryxos/contracts';
import { errorMessage, isOryxError } from '@oryxos/provider-spec';
import { SQLITE_STORE_MIGRATIONS } from '@oryxos/sql-store';
import { sqliteError } from './errors.ts';
import type { OpenDatabase } from './database.ts';

export type { Migration };

/** The owner name this plugin's own migrations are recorded under. */
export const OWNER = 'sqlite';

/**
 * The store's schema on SQLite (the store kit's, recorded under this plugin's name): sessions,
 * messages keyed by `(session_id, seq)`, leases, the quarantine, call marks, tags.
 */
export const MIGRATIONS: readonly Migration[] = SQLITE_STORE_MIGRATIONS;

/** The newest schema version this code knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/**
 * The schema version recorded in the database for `owner` (0 for none yet). Reads only. A
 * `schema_migrations` table from before owners existed holds only this plugin's versions.
 *
 * @example
 * if (await schemaVersion(db) < SCHEMA_VERSION) await migrate(db);
 */
export async function schemaVersion(db: Pick<DatabaseTx, 'query'>, owner = OWNER): Promise<number> {
  const columns = await db.query<{ name: string }>("SELECT name FROM pragma_table_info('schema_migrations')");
  if (columns.length === 0) return 0;
  if (!columns.some((c) => c.name === 'owner')) {
    if (owner !== OWNER) return 0;
    const [row] = await db.query<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_migrations');
    return Number(row?.v ?? 0);
  }
  const [row] = await db.query<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_migrations WHERE owner = ?', [owner]);
  return Number(row?.v ?? 0);
}

/**
 * The versions recorded per owner (a table from before owners existed holds this plugin's). Reads only.
 *
 * @example
 * await recordedVersions(db); // { sqlite: 8, audit: 5, runs: 2 }
 */
export async function recordedVersions(db: Pick<DatabaseTx, 'query'>): Promise<Record<string, number>> {
  const columns = await db.query<{ name: string }>("SELECT name FROM pragma_table_info('schema_migrations')");
  if (columns.length === 0) return {};
  if (!columns.some((c) => c.name === 'owner')) return { [OWNER]: await schemaVersion(db) };
  const rows = await db.query<{ owner: string; v: number }>('SELECT owner, MAX(version) AS v FROM schema_migrations GROUP BY owner');
  return Object.fromEntries(rows.map((r) => [r.owner, Number(r.v)]));
}

/**
 * Creates `schema_migrations` keyed by (owner, version), or upgrades the one-owner table of
 * earlier versions in place (its rows are this plugin's).
 */
async function ensureMigrationsTable(tx: DatabaseTx): Promise<void> {
  const columns = await tx.query<{ name: string }>("SELECT name FROM pragma_table_info('schema_migrations')");
  if (columns.some((c) => c.name === 'owner')) return;
  await tx.execute(`CREATE TABLE schema_migrations_v2 (
    owner TEXT NOT NULL,
    version INTEGER NOT NULL,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL,
    PRIMARY KEY (owner, version)
  )`);
  if (columns.length) {
    await tx.execute(`INSERT INTO schema_migrations_v2 (owner, version, name, applied_at) SELECT ?, version, name, applied_at FROM schema_migrations`, [OWNER]);
    await tx.execute('DROP TABLE schema_migrations');
  }
  await tx.execute('ALTER TABLE schema_migrations_v2 RENAME TO schema_migrations');
}

/** A migration's statements for SQLite. */
function statementsOf(m: Migration): readonly string[] {
  return Array.isArray(m.statements) ? m.statements : (m.statements as Partial<Record<string, readonly string[]>>).sqlite ?? [];
}

/**
 * Refuses a database written by a newer version of this plugin, before anything writes to it.
 *
 * @example
 * assertKnownVersion(await schemaVersion(db), db.url); // throws ORYX_E_SQLITE_SCHEMA_NEWER
 */
export function assertKnownVersion(found: number, url: string, known = SCHEMA_VERSION, owner = OWNER): void {
  if (found > known) {
    const who = owner === OWNER ? '@oryxos/plugin-sqlite' : `the ${owner} plugin`;
    throw sqliteError('ORYX_E_SQLITE_SCHEMA_NEWER',
      `The database ${url} has ${owner === OWNER ? '' : `${owner} `}schema version ${found}, newer than the ${known} this ${who} knows; it was left untouched`, {
        data: { found, known, owner },
      });
  }
}

/**
 * Applies `owner`'s pending migrations in one write transaction (two processes starting at
 * once take turns; the second finds nothing to do). Returns the versions applied.
 *
 * @example
 * const db = await openDatabase({ kind: 'file', path: 'x.db' }, { driver: 'libsql', busyTimeoutMs: 5000 });
 * await enableWal(db);
 * await migrate(db); // [1, 2, 3] the first time, [] after
 * await migrate(db, AUDIT_MIGRATIONS, 'audit');
 */
export async function migrate(db: Pick<OpenDatabase, 'url' | 'transaction'>, migrations: readonly Migration[] = MIGRATIONS, owner = OWNER): Promise<number[]> {
  const known = migrations.length ? migrations[migrations.length - 1]!.version : 0;
  try {
    return await db.transaction(async (tx) => {
      await ensureMigrationsTable(tx);
      const current = await schemaVersion(tx, owner);
      assertKnownVersion(current, db.url, known, owner);
      const applied: number[] = [];
      for (const m of migrations) {
        if (m.version <= current) continue;
        for (const sql of statementsOf(m)) await tx.execute(sql);
        await tx.execute('INSERT INTO schema_migrations (owner, version, name, applied_at) VALUES (?, ?, ?, ?)', [owner, m.version, m.name, new Date().toISOString()]);
        applied.push(m.version);
      }
      return applied;
    });
  } catch (error) {
    if (isOryxError(error) && error.code === 'ORYX_E_SQLITE_SCHEMA_NEWER') throw error;
    throw sqliteError('ORYX_E_SQLITE_MIGRATION', `Migrating ${owner === OWNER ? '' : `the ${owner} tables of `}${db.url} failed and was rolled back: ${errorMessage(error)}`, { cause: error });
  }
}
