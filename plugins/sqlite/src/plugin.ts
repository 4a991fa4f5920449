import { STAGE, pluginPackage, type Database, type Plugin, type PluginContext } from '@oryxos/kernel';
import { enableWal, openDatabase, type OpenDatabase } from './database.ts';
import { sqliteError } from './errors.ts';
import { checkIntegrity, type IntegrityReport } from './integrity.ts';
import { assertKnownVersion, migrate, schemaVersion } from './migrations.ts';
import { resolveOptions, type SqliteOptions } from './options.ts';
import { SqliteSessionStore } from './session-store.ts';
import { resolveTarget } from './url.ts';

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
}

/**
 * Durable sessions and the shared SQL database. Provides the `sessions` and `database`
 * services; opens the database in setup (refusing a newer schema before writing anything),
 * applies migrations at `init`, closes it on `close`.
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
    provides: ['sessions', 'database'],
    options: opts,
    async setup(ctx: PluginContext) {
      const target = resolveTarget(opts.url, ctx.config.root);
      let db: OpenDatabase | undefined;
      const current = (): OpenDatabase => {
        if (!db) throw sqliteError('ORYX_E_SQLITE_CLOSED', 'The sqlite database is not open');
        return db;
      };
      const store = new SqliteSessionStore(current, {
        leaseMs: opts.leaseMs, lockTimeoutMs: opts.lockTimeoutMs, appendRetries: opts.appendRetries, log: ctx.log,
        onCancelRequested(sessionId, by) {
          ctx.log.warn(`${by} is deleting session ${sessionId}; aborting its run in this process`);
          void ctx.runs.abortSession(sessionId, 'session-deleted');
        },
      });
      // A proxy rather than the handle, so a service user that kept it sees CLOSED, not a crash.
      const service: SqliteDatabaseService = {
        get url() { return current().url; },
        execute: (sql, params) => current().execute(sql, params),
        query: (sql, params) => current().query(sql, params),
        dialect: 'sqlite',
        transaction: (fn) => current().transaction(fn),
        migrate: (owner, migrations) => migrate(current(), migrations, owner),
        check: (checkOptions) => checkIntegrity(current(), checkOptions),
      };
      ctx.provide('sessions', store);
      ctx.provide('database', service);

      ctx.hooks.close.tapPromise(async () => {
        const open = db;
        if (!open) return;
        await store.close().catch(() => {});
        db = undefined;
        await open.close();
      });

      const driver = opts.driver === 'auto' ? (target.kind === 'file' ? 'libsql' : 'client') : opts.driver;
      const opened = await openDatabase(target, { driver, authToken: opts.authToken, busyTimeoutMs: opts.busyTimeoutMs });
      try {
        assertKnownVersion(await schemaVersion(opened), opened.url);
      } catch (error) {
        await opened.close();
        throw error;
      }
      db = opened;

      // First of all init taps: other plugins' init taps may already query the database.
      ctx.hooks.init.tapPromise({ stage: STAGE.GUARD }, async () => {
        await enableWal(current());
        const applied = await migrate(current());
        if (applied.length) ctx.log.debug(`applied migrations ${applied.join(', ')} to ${current().url}`);
      });
    },
  };
}
