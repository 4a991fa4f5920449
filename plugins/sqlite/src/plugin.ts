import { existsSync } from 'node:fs';
import { STAGE, pluginPackage, type Plugin, type PluginContext } from '@oryxos/kernel';
import type { Database, Migration, SqlParams } from '@oryxos/contracts';
import { enableWal, openDatabase, type OpenDatabase, type OpenOptions } from './database.ts';
import { sqliteError } from './errors.ts';
import { checkIntegrity, type IntegrityReport } from './integrity.ts';
import { migrationControl, reportingMigrate } from './migration-control.ts';
import { assertKnownVersion, migrate, MIGRATIONS, OWNER, recordedVersions, schemaVersion } from './migrations.ts';
import { resolveOptions, type SqliteOptions } from './options.ts';
import { attachRunRecords } from './run-records.ts';
import { storeForKernel } from './session-store.ts';
import { displayUrl, resolveTarget, type DatabaseTarget } from './url.ts';

/**
 * The `database` service this plugin provides: the kernel's `Database`, plus `check()`, SQLite's
 * own consistency check (for `oryx doctor`).
 *
 * @example
 * const db = kernel.service('database') as SqliteDatabaseService;
 * const report = await db.check(); // { ok, check: 'quick_check', problems: [{ object: 'index …', detail }] }
 */
export interface SqliteDatabaseService extends Database {
  check(options?: { full?: boolean; maxProblems?: number }): Promise<IntegrityReport>;
  /**
   * A write that may wait for the next transaction on this database and commit with it (the
   * audit trail's rows commit with the session message that follows them), else on the next
   * turn of the event loop; reads through this service see it at once. `onError` hears why it
   * could not be written.
   */
  defer(sql: string, params?: SqlParams, onError?: (error: unknown) => void): void;
}

/**
 * Durable sessions and the shared SQL database. Provides the `sessions` and `database`
 * services; opens the database in setup (refusing a newer schema before writing anything),
 * applies migrations at `init`, closes it on `close`. A read-only kernel (`oryx sessions`,
 * `oryx agents`) opens it, and migrates, at its first use instead.
 *
 * @example
 * // oryx.config.ts
 * import { defineConfig } from '@oryxos/kernel';
 * import sqlite from '@oryxos/plugin-sqlite';
 * export default defineConfig({ plugins: [sqlite({ url: 'file:.oryxos/oryx.db' })] });
 */
export default function sqlite(options: SqliteOptions = {}): Plugin {
  const opts = resolveOptions(options);
  return {
    ...pluginPackage(import.meta.url),
    name: 'sqlite',
    provides: ['sessions', 'database', 'runRecords'],
    options: opts,
    async setup(ctx: PluginContext) {
      const configured = resolveTarget(opts.url, ctx.config.root);
      const control = migrationControl();
      // `oryx db status`: read what the database holds, then let every plugin migrate a scratch
      // database instead, so each one reports what it would apply without touching the real one.
      const scratch = control?.mode === 'plan';
      // A command that only reads (`oryx sessions`, `oryx audit …`) in a project with no database
      // yet reads an empty in-memory one: nothing is created by a read.
      const nothingYet = ctx.readOnly && configured.kind === 'file' && configured.path !== ':memory:' && !existsSync(configured.path);
      const inMemory = scratch || nothingYet;
      const target: DatabaseTarget = inMemory ? { kind: 'file', path: ':memory:' } : configured;
      const driverFor = (t: DatabaseTarget) => (opts.driver === 'auto' || inMemory ? (t.kind === 'file' ? 'libsql' : 'client') : opts.driver);
      if (nothingYet) ctx.log.debug(`no database at ${configured.path} yet; this read-only command reads an empty one and creates none`);
      if (control) {
        control.database = { dialect: 'sqlite', url: configured.kind === 'file' ? `file:${configured.path}` : displayUrl(configured.url) };
        if (scratch) control.recorded = await readRecorded(configured, { driver: driverFor(configured), authToken: opts.authToken, busyTimeoutMs: opts.busyTimeoutMs });
      }
      let db: OpenDatabase | undefined;
      // A read-only kernel opens the database at its first use: a command that never touches it
      // (`oryx agents`, `oryx tools`) does not load the driver nor open the file (~7 ms), and a
      // locked, damaged or newer database does not stop it. The migrations asked for at `init`
      // (this plugin's, then the other plugins' in the order they asked) run at that first use,
      // before it. Any other kernel opens it in setup, as always.
      const lazy = ctx.readOnly && !control;
      let opening: Promise<OpenDatabase> | undefined;
      const asked: [owner: string, migrations: readonly Migration[]][] = [];
      let closed = false;
      const open = async (): Promise<OpenDatabase> => {
        const opened = await openDatabase(target, { driver: driverFor(target), authToken: opts.authToken, busyTimeoutMs: opts.busyTimeoutMs });
        try {
          assertKnownVersion(await schemaVersion(opened), opened.url);
        } catch (error) {
          await opened.close();
          throw error;
        }
        return opened;
      };
      const ready = (): Promise<OpenDatabase> => (opening ??= (async () => {
        if (closed) throw sqliteError('ORYX_E_SQLITE_CLOSED', 'The sqlite database is not open');
        const opened = await open();
        try {
          await enableWal(opened);
          for (const [owner, migrations] of [[OWNER, MIGRATIONS] as const, ...asked]) await migrate(opened, migrations, owner);
        } catch (error) {
          // Every later use fails the same way, as the command would have at start.
          await opened.close();
          throw error;
        }
        // Only now: a use that comes while the migrations run waits for them too.
        db = opened;
        return opened;
      })());
      // What the store and the services hold before then: each call opens first.
      const unopened: OpenDatabase = {
        driver: driverFor(target),
        dialect: 'sqlite',
        get url() { return target.kind === 'file' ? `file:${target.path}` : target.url; },
        execute: async (sql, params) => (await ready()).execute(sql, params),
        query: async (sql, params) => (await ready()).query(sql, params),
        transaction: async (fn) => (await ready()).transaction(fn),
        defer: (sql, params, onError) => { ready().then((d) => d.defer(sql, params, onError), (error) => onError?.(error)); },
        close: async () => {},
      };
      const current = (): OpenDatabase => {
        if (db) return db;
        if (lazy && !closed) return unopened;
        throw sqliteError('ORYX_E_SQLITE_CLOSED', 'The sqlite database is not open');
      };
      const store = storeForKernel(ctx, current, opts, 'sqlite');
      const migrateOwner = (owner: string, migrations: readonly Migration[]) => migrate(current(), migrations, owner);
      // Unopened (lazy): remembered for the first use, and nothing applied yet.
      const migrateNow = (owner: string, migrations: readonly Migration[]): Promise<number[]> => {
        if (db || !lazy) return migrateOwner(owner, migrations);
        if (opening) return opening.then(() => migrateOwner(owner, migrations));
        asked.push([owner, migrations]);
        return Promise.resolve([]);
      };
      const migrateAny = control
        ? reportingMigrate(control, migrateOwner, async (owner) => (control.mode === 'plan' ? control.recorded?.[owner] ?? 0 : schemaVersion(current(), owner)))
        : migrateNow;
      // A proxy rather than the handle, so a service user that kept it sees CLOSED, not a crash.
      const service: SqliteDatabaseService = {
        get url() { return current().url; },
        execute: (sql, params) => current().execute(sql, params),
        query: (sql, params) => current().query(sql, params),
        dialect: 'sqlite',
        transaction: (fn) => current().transaction(fn),
        migrate: migrateAny,
        check: (checkOptions) => checkIntegrity(current(), checkOptions),
        defer: (sql, params, onError) => {
          if (db || (lazy && !closed)) current().defer(sql, params, onError);
          else onError?.(sqliteError('ORYX_E_SQLITE_CLOSED', 'The sqlite database is not open'));
        },
      };
      ctx.provide('sessions', store);
      ctx.provide('database', service);
      attachRunRecords(ctx, () => service);

      ctx.hooks.close.tapPromise(async () => {
        closed = true;
        await opening?.catch(() => {});
        const open = db;
        if (!open) return;
        await store.close().catch(() => {});
        db = undefined;
        await open.close();
      });

      if (lazy) return;
      db = await open();

      // First of all init taps: other plugins' init taps may already query the database.
      ctx.hooks.init.tapPromise({ stage: STAGE.GUARD }, async () => {
        await enableWal(current());
        const applied = await migrateAny(OWNER, MIGRATIONS);
        if (applied.length) ctx.log.debug(`applied migrations ${applied.join(', ')} to ${current().url}`);
      });
    },
  };
}

/** The versions a database holds per owner, read without writing (a missing file is not created). */
async function readRecorded(target: DatabaseTarget, options: OpenOptions): Promise<Record<string, number>> {
  if (target.kind === 'file' && !existsSync(target.path)) return {};
  const db = await openDatabase(target, options);
  try {
    return await recordedVersions(db);
  } finally {
    await db.close();
  }
}
