import type { Database, Migration } from '@oryxos/contracts';
import { STAGE, pluginPackage, type Plugin, type PluginContext } from '@oryxos/kernel';
import { attachStore, migrationControl, reportingMigrate, SchemaGate } from '@oryxos/sql-store';
import { openPostgres, type OpenPostgres, type PgConnectOptions } from './database.ts';
import { pgError } from './errors.ts';
import { assertKnownVersion, migrate, MIGRATIONS, OWNER, recordedVersions, SCHEMA_VERSION } from './migrations.ts';
import { resolveOptions, resolveUrl, type PostgresOptions } from './options.ts';
import { displayUrl, passwordOf } from './url.ts';

/**
 * The session store and the `database` service on PostgreSQL, for several OryxOS processes on
 * several hosts sharing one database: the store kit's store (leases serialize runs on a session
 * across processes, appends take a row lock so `seq` stays contiguous), every plugin's tables
 * migrated through the same `database.migrate(owner, …)`. The client (postgres.js) loads in
 * setup; the pool opens there, so a bad URL or a newer schema stops the start. A read-only
 * kernel (`oryx sessions`, `oryx doctor`) applies no migration until its first query.
 *
 * @example
 * // oryx.config.ts
 * import postgres, { env } from '@oryxos/plugin-postgres';
 * export default defineConfig({ plugins: [postgres({ url: env('ORYX_DATABASE_URL'), poolSize: 10 }), audit(), web()] });
 */
export default function postgres(options: PostgresOptions): Plugin {
  const opts = resolveOptions(options);
  return {
    ...pluginPackage(import.meta.url),
    name: 'postgres',
    provides: ['sessions', 'database', 'runRecords'],
    options: opts,
    async setup(ctx: PluginContext) {
      const url = resolveUrl(opts.url);
      const password = passwordOf(url);
      if (password) ctx.secrets.add(password);
      const connect: PgConnectOptions = {
        url, poolSize: opts.poolSize, statementTimeoutMs: opts.statementTimeoutMs, connectTimeoutMs: opts.connectTimeoutMs,
        applicationName: opts.applicationName, log: ctx.log, ...(opts.ssl !== undefined ? { ssl: opts.ssl } : {}),
      };
      const control = migrationControl();
      const scratch = control?.mode === 'plan';
      if (control) {
        control.database = { dialect: 'postgres', url: displayUrl(url) };
        if (scratch) control.recorded = await readRecorded(connect);
      }

      let db: OpenPostgres | undefined;
      const pool = (): OpenPostgres => {
        if (!db) throw pgError('ORYX_E_PG_CLOSED', 'The postgres database is not open');
        return db;
      };
      // autoMigrate: false leaves migrations to `oryx db migrate` (one process, at deploy time).
      const apply = opts.autoMigrate || control?.mode === 'apply' || scratch;
      const migrateOwner = (owner: string, migrations: readonly Migration[]) => migrate(pool(), migrations, owner, { apply });
      // A read-only kernel only remembers the migrations asked for at init; its first query applies them.
      const gate = new SchemaGate({ apply: migrateOwner, recorded: () => recordedVersions(pool()) }, { deferred: ctx.readOnly && !control });
      let readying: Promise<void> | undefined;
      const current = gate.deferred
        ? async (): Promise<OpenPostgres> => { await (readying ??= gate.applyDeferred()); return pool(); }
        : async (): Promise<OpenPostgres> => pool();
      const migrateAny = control
        ? reportingMigrate(control, migrateOwner, async (owner) => (scratch ? control.recorded?.[owner] : (await recordedVersions(pool()))[owner]) ?? 0)
        : (owner: string, migrations: readonly Migration[]) => gate.migrate(owner, migrations);
      // A proxy rather than the pool, so a service user that kept it sees CLOSED, not a crash.
      const service: Database = {
        get url() { return pool().url; },
        dialect: 'postgres',
        execute: async (sql, params) => (await current()).execute(sql, params),
        query: async (sql, params) => (await current()).query(sql, params),
        transaction: async (fn) => (await current()).transaction(fn),
        migrate: migrateAny,
        // PostgreSQL checks its own pages; its copies are made with pg_dump (see the README).
        inspect: async () => ({ dialect: 'postgres', url: pool().url, owners: await gate.report(), recorded: await recordedVersions(pool()), warnings: [] }),
      };
      ctx.provide('database', service);
      const stores = attachStore(ctx, { db: () => service, migrate: migrateAny, leaseMs: opts.leaseMs, lockTimeoutMs: opts.lockTimeoutMs, appendRetries: opts.appendRetries });

      ctx.hooks.close.tapPromise(async () => {
        const open = db;
        if (!open) return;
        await stores.sessions.close().catch(() => {});
        db = undefined;
        await open.close();
      });

      // `oryx db status` migrates a scratch schema that lives only as long as its one connection.
      const opened = await openPostgres(scratch ? { ...connect, poolSize: 1, searchPath: 'pg_temp' } : connect);
      try {
        if (!scratch) assertKnownVersion((await recordedVersions(opened))[OWNER] ?? 0, SCHEMA_VERSION, OWNER, opened.url);
      } catch (error) {
        await opened.close();
        throw error;
      }
      db = opened;

      // First of all init taps: other plugins' init taps migrate and query their tables.
      ctx.hooks.init.tapPromise({ stage: STAGE.GUARD }, async () => {
        const applied = await migrateAny(OWNER, MIGRATIONS);
        if (applied.length) ctx.log.debug(`applied migrations ${applied.join(', ')} to ${pool().url}`);
      });
    },
  };
}

/** The versions the database holds per owner, through a connection of its own. */
async function readRecorded(connect: PgConnectOptions): Promise<Record<string, number>> {
  const db = await openPostgres({ ...connect, poolSize: 1 });
  try {
    return await recordedVersions(db);
  } finally {
    await db.close();
  }
}
