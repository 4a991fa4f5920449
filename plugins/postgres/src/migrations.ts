import type { DatabaseTx, Migration } from '@oryxos/contracts';
import { errorMessage, isOryxError } from '@oryxos/provider-spec';
import { POSTGRES_STORE_MIGRATIONS } from '@oryxos/sql-store';
import { pgError } from './errors.ts';
import type { OpenPostgres } from './database.ts';

/** The owner name this plugin's own migrations (the session store's tables) are recorded under. */
export const OWNER = 'postgres';

/**
 * The store's schema on PostgreSQL (the store kit's, recorded under this plugin's name): the same
 * tables and columns as on SQLite, so `oryx db copy` moves rows between the two.
 */
export const MIGRATIONS: readonly Migration[] = POSTGRES_STORE_MIGRATIONS;

/** The newest schema version of this plugin's own tables. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** One advisory lock for every migration of every owner: processes starting at once take turns. */
const MIGRATION_LOCK = 0x6f72_7978; // "oryx"

/**
 * The versions recorded per owner (empty before the first migration). Reads only.
 *
 * @example
 * const found = await recordedVersions(db); // { postgres: 4, audit: 5, runs: 2 }
 */
export async function recordedVersions(db: Pick<OpenPostgres, 'query'>): Promise<Record<string, number>> {
  const [exists] = await db.query<{ t: string | null }>("SELECT to_regclass('schema_migrations')::text AS t");
  if (!exists?.t) return {};
  const rows = await db.query<{ owner: string; v: number }>('SELECT owner, MAX(version) AS v FROM schema_migrations GROUP BY owner');
  return Object.fromEntries(rows.map((r) => [r.owner, Number(r.v)]));
}

/**
 * Refuses a database that holds a newer version for `owner` than the code knows.
 *
 * @example
 * assertKnownVersion(await recordedVersions(db), 'postgres', SCHEMA_VERSION, db.url); // throws ORYX_E_PG_SCHEMA_NEWER
 */
export function assertKnownVersion(found: number, known: number, owner: string, url: string): void {
  if (found > known) {
    throw pgError('ORYX_E_PG_SCHEMA_NEWER',
      `The database ${url} has ${owner} schema version ${found}, newer than the ${known} this ${owner === OWNER ? '@oryxos/plugin-postgres' : `${owner} plugin`} knows; it was left untouched`, {
        hint: `Upgrade OryxOS on this host to the version that wrote it (the ${owner} plugin), or point url at another database. Nothing was changed.`,
        data: { found, known, owner },
      });
  }
}

/** A migration's statements for PostgreSQL (a list shared by every dialect, or its own). */
export function postgresStatements(m: Migration): readonly string[] {
  return Array.isArray(m.statements) ? m.statements : (m.statements as Partial<Record<string, readonly string[]>>).postgres ?? [];
}

/**
 * Applies `owner`'s pending migrations in one transaction, under an advisory lock (PostgreSQL's
 * DDL is transactional: a failed migration leaves nothing behind). `apply: false` applies
 * nothing and fails with ORYX_E_PG_MIGRATION_PENDING when something is pending. Returns the
 * versions applied.
 *
 * @example
 * await migrate(db, MIGRATIONS, 'postgres'); // [1] the first time, [] after
 */
export async function migrate(db: OpenPostgres, migrations: readonly Migration[], owner: string, options: { apply?: boolean } = {}): Promise<number[]> {
  const known = migrations.length ? migrations[migrations.length - 1]!.version : 0;
  try {
    return await db.transaction(async (tx) => {
      await tx.execute(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
      await ensureMigrationsTable(tx);
      const [row] = await tx.query<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_migrations WHERE owner = ?', [owner]);
      const current = Number(row?.v ?? 0);
      assertKnownVersion(current, known, owner, db.url);
      const pending = migrations.filter((m) => m.version > current);
      if (pending.length && options.apply === false) {
        throw pgError('ORYX_E_PG_MIGRATION_PENDING',
          `The database ${db.url} needs ${owner} migration${pending.length > 1 ? 's' : ''} ${pending.map((m) => `${m.version} (${m.name})`).join(', ')}, and postgres({ autoMigrate: false }) does not apply them`, {
            data: { owner, current, pending: pending.map((m) => m.version) },
          });
      }
      for (const m of pending) {
        for (const sql of postgresStatements(m)) await tx.execute(sql);
        await tx.execute('INSERT INTO schema_migrations (owner, version, name, applied_at) VALUES (?, ?, ?, ?)', [owner, m.version, m.name, new Date().toISOString()]);
      }
      return pending.map((m) => m.version);
    });
  } catch (error) {
    if (isOryxError(error) && (error.code === 'ORYX_E_PG_SCHEMA_NEWER' || error.code === 'ORYX_E_PG_MIGRATION_PENDING' || error.code === 'ORYX_E_PG_UNAVAILABLE')) throw error;
    throw pgError('ORYX_E_PG_MIGRATION', `Migrating the ${owner} tables of ${db.url} failed and was rolled back: ${errorMessage(error)}`, { cause: error });
  }
}

async function ensureMigrationsTable(tx: DatabaseTx): Promise<void> {
  await tx.execute(`CREATE TABLE IF NOT EXISTS schema_migrations (
    owner TEXT NOT NULL,
    version INTEGER NOT NULL,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL,
    PRIMARY KEY (owner, version)
  )`);
}
