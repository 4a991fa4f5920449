import { STAGE, pluginPackage, type Plugin, type PluginContext } from '@oryxos/kernel';
import type { Database, Migration } from '@oryxos/contracts';
import { attachRunRecords, migrationControl, reportingMigrate, storeForKernel } from '@oryxos/plugin-sqlite';
import { openPostgres, type OpenPostgres, type PgConnectOptions } from './database.ts';
import { pgError } from './errors.ts';
import { assertKnownVersion, migrate, MIGRATIONS, OWNER, recordedVersions, SCHEMA_VERSION } from './migrations.ts';
import { resolveOptions, resolveUrl, type PostgresOptions } from './options.ts';
import { displayUrl, passwordOf } from './url.ts';

/**
 * The session store and the `database` service on PostgreSQL, for several OryxOS processes on
 * several hosts sharing one database: the same store as `@oryxos/plugin-sqlite` (leases serialize
 * runs on a session across processes, appends take a row lock so `seq` stays contiguous), every
 * plugin's tables migrated through the same `database.migrate(owner, …)`. The client (postgres.js)
 * loads in setup; the pool opens there, so a bad URL or a newer schema stops the start.
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
      const current = (): OpenPostgres => {
        if (!db) throw pgError('ORYX_E_PG_CLOSED', 'The postgres database is not open');
        return db;
      };
      const store = storeForKernel(ctx, current, opts, 'postgres');
      // autoMigrate: false leaves migrations to `oryx db migrate` (one process, at deploy time).
      const apply = opts.autoMigrate || control?.mode === 'apply' || scratch;
      const migrateOwner = (owner: string, migrations: readonly Migration[]) => migrate(current(), migrations, owner, { apply });
      const migrateAny = control
        ? reportingMigrate(control, migrateOwner, async (owner) => (scratch ? control.recorded?.[owner] : (await recordedVersions(current()))[owner]) ?? 0)
        : migrateOwner;
      // A proxy rather than the pool, so a service user that kept it sees CLOSED, not a crash.
      const service: Database = {
        get url() { return current().url; },
        dialect: 'postgres',
        execute: (sql, params) => current().execute(sql, params),
        query: (sql, params) => current().query(sql, params),
        transaction: (fn) => current().transaction(fn),
        migrate: migrateAny,
      };
      ctx.provide('sessions', store);
      ctx.provide('database', service);
      attachRunRecords(ctx, () => service);

      ctx.hooks.close.tapPromise(async () => {
        const open = db;
        if (!open) return;
        await store.close().catch(() => {});
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
        if (applied.length) ctx.log.debug(`applied migrations ${applied.join(', ')} to ${current().url}`);
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
