import { existsSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Database, DatabaseReport, Migration, SqlParams } from '@oryxos/contracts';
import { STAGE, pluginPackage, type Plugin, type PluginContext } from '@oryxos/kernel';
import { errorMessage, isOryxError } from '@oryxos/provider-spec';
import { attachStore, migrationControl, reportingMigrate, SchemaGate } from '@oryxos/sql-store';
import { enableWal, openDatabase, type OpenDatabase, type OpenOptions } from './database.ts';
import { sqliteError } from './errors.ts';
import { HighWater, observe } from './high-water.ts';
import { checkIntegrity, damagedHeader, type IntegrityReport } from './integrity.ts';
import { assertKnownVersion, migrate, MIGRATIONS, OWNER, recordedVersions, schemaVersion } from './migrations.ts';
import { resolveOptions, type SqliteOptions } from './options.ts';
import { displayUrl, resolveTarget, type DatabaseTarget } from './url.ts';

/**
 * The `database` service this plugin provides: the contracts' `Database` (with `inspect` and
 * `backup`), plus `check()`, SQLite's own consistency check, and `defer()`, a write that rides
 * with the next transaction (the audit trail's rows).
 *
 * @example
 * const db = kernel.service('database') as SqliteDatabaseService;
 * const report = await db.check(); // { ok, check: 'quick_check', problems: [{ kind: 'index', name: 'sessions_by_updated', detail }] }
 */
export interface SqliteDatabaseService extends Database {
  check(options?: { full?: boolean; maxProblems?: number }): Promise<IntegrityReport>;
  /** `Database.backup` of the contracts, always there for a database file: `VACUUM INTO file` (see the README's *Backups*). */
  backup(file: string): Promise<{ file: string; bytes: number }>;
  /**
   * `Database.defer` of the contracts, always there on SQLite: a write that commits with the
   * next transaction on this database (the audit trail's rows with the session message that
   * follows them), else on the next turn of the event loop; reads see it at once. Kept because
   * measured: writing each audit row in a commit of its own costs ~15 % more CPU per loop step
   * (bench/steps.ts, four pairs) and one more WAL page a step.
   */
  defer(sql: string, params?: SqlParams, onError?: (error: unknown) => void): void;
}

/**
 * Durable sessions and the shared SQL database. Provides the `sessions`, `database` and
 * `runRecords` services (the store kit's store on this driver); opens the database in setup
 * (refusing a newer schema, or a file older than this installation saw in it, before writing
 * anything), applies migrations at `init`, keeps the database whole in its main file
 * (checkpoints when idle, at close, and at least every two seconds), closes it on `close`. A
 * read-only kernel (`oryx sessions`, `oryx agents`) opens it, and migrates, at its first use instead.
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
      const file = configured.kind === 'file' && configured.path !== ':memory:' ? configured.path : undefined;
      // A command that only reads (`oryx sessions`, `oryx audit …`) in a project with no database
      // yet reads an empty in-memory one: nothing is created by a read.
      const existed = file !== undefined && existsSync(file);
      const nothingYet = ctx.readOnly && file !== undefined && !existed;
      const inMemory = scratch || nothingYet;
      const target: DatabaseTarget = inMemory ? { kind: 'file', path: ':memory:' } : configured;
      const driverFor = (t: DatabaseTarget) => (opts.driver === 'auto' || inMemory ? (t.kind === 'file' ? 'libsql' : 'client') : opts.driver);
      const openOptions = (t: DatabaseTarget): OpenOptions => ({ driver: driverFor(t), authToken: opts.authToken, busyTimeoutMs: opts.busyTimeoutMs });
      if (nothingYet) ctx.log.debug(`no database at ${file} yet; this read-only command reads an empty one and creates none`);
      if (control) {
        control.database = { dialect: 'sqlite', url: configured.kind === 'file' ? `file:${configured.path}` : displayUrl(configured.url) };
        if (scratch) control.recorded = await readRecorded(configured, openOptions(configured));
      }
      const mark = file && !inMemory ? new HighWater(file) : undefined;
      const warnings: DatabaseReport['warnings'] = [];

      // A read-only kernel opens the database at its first use: a command that never touches it
      // (`oryx agents`, `oryx tools`) does not load the driver nor open the file (~7 ms), and a
      // locked, damaged or newer database does not stop it. The migrations asked for at `init`
      // (this plugin's, then the other plugins' in the order they asked) run at that first use,
      // before it. Any other kernel opens it in setup, as always.
      const lazy = ctx.readOnly && !control;
      let closed = false;
      let connection: Promise<OpenDatabase> | undefined;
      let db: OpenDatabase | undefined;
      const opened = (): Promise<OpenDatabase> => (connection ??= (async () => {
        if (closed) throw sqliteError('ORYX_E_SQLITE_CLOSED', 'The sqlite database is not open');
        const conn = await openChecked(target, openOptions(target));
        try {
          assertKnownVersion(await schemaVersion(conn), conn.url);
          await checkMark(conn);
        } catch (error) {
          await conn.close();
          throw error;
        }
        return conn;
      })());
      const gate = new SchemaGate({
        apply: async (owner, migrations) => migrate(await opened(), migrations, owner),
        recorded: async () => recordedVersions(await opened()),
      }, { deferred: lazy });
      let readying: Promise<OpenDatabase> | undefined;
      const ready = (): Promise<OpenDatabase> => (readying ??= (async () => {
        const conn = await opened();
        try {
          await enableWal(conn);
          await gate.applyDeferred();
        } catch (error) {
          // Every later use fails the same way, as the command would have at start.
          await conn.close();
          throw error;
        }
        // Only now: a use that comes while the migrations run waits for them too.
        db = conn;
        return conn;
      })());

      /** Refuses (or, read-only, reports) a file that holds less than this installation saw in it. */
      async function checkMark(conn: OpenDatabase): Promise<void> {
        if (!mark) return;
        if (!existed) {
          // Removed on purpose (or never there): a new database, a new mark.
          if (!ctx.readOnly) await mark.forget();
          return;
        }
        const seen = mark.read();
        if (!seen) return;
        let now;
        try {
          now = await observe(conn, seen.newest ? [seen.newest.id] : []);
        } catch (error) {
          // A damaged file is told by its own error, at the read that meets the damage (and by `oryx doctor`).
          ctx.log.debug(`the high-water mark of ${file} was not compared: ${errorMessage(error)}`);
          return;
        }
        const older = mark.compare(now, seen);
        if (!older.length) return;
        const error = mark.error(older, seen) as ReturnType<typeof sqliteError>;
        if (!ctx.readOnly) throw error;
        warnings.push({ code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) });
        ctx.log.warn(`${error.code}: ${error.message} ${error.hint ?? ''}`);
      }

      /** Records what the file holds now, about once a second while it is written and at idle moments. */
      let marking: Promise<void> | undefined;
      const writeMark = (conn: OpenDatabase): Promise<void> => (marking ??= (async () => {
        try {
          if (mark && !conn.readOnly) await mark.write(await observe(conn));
        } catch (error) {
          ctx.log.debug(`the high-water mark of ${file} was not written: ${errorMessage(error)}`);
        } finally {
          marking = undefined;
        }
      })());

      // What the store and the services hold before then: each call opens first.
      const unopened: OpenDatabase = {
        driver: driverFor(target),
        dialect: 'sqlite',
        readOnly: false,
        get url() { return target.kind === 'file' ? `file:${target.path}` : target.url; },
        execute: async (sql, params) => (await ready()).execute(sql, params),
        query: async (sql, params) => (await ready()).query(sql, params),
        transaction: async (fn) => (await ready()).transaction(fn),
        defer: (sql, params, onError) => { ready().then((d) => d.defer(sql, params, onError), (error) => onError?.(error)); },
        onIdle: () => () => {},
        backup: async (to) => (await ready()).backup(to),
        close: async () => {},
      };
      const current = (): OpenDatabase => {
        if (db) return db;
        if (lazy && !closed) return unopened;
        throw sqliteError('ORYX_E_SQLITE_CLOSED', 'The sqlite database is not open');
      };
      const migrateAny = control
        ? reportingMigrate(control, (owner, migrations) => migrate(current(), migrations, owner),
          async (owner) => (control.mode === 'plan' ? control.recorded?.[owner] ?? 0 : schemaVersion(current(), owner)))
        : (owner: string, migrations: readonly Migration[]) => gate.migrate(owner, migrations);
      // A proxy rather than the handle, so a service user that kept it sees CLOSED, not a crash.
      const service: SqliteDatabaseService = {
        get url() { return current().url; },
        dialect: 'sqlite',
        execute: (sql, params) => current().execute(sql, params),
        query: (sql, params) => current().query(sql, params),
        transaction: (fn) => current().transaction(fn),
        migrate: migrateAny,
        check: (checkOptions) => checkIntegrity(current(), checkOptions),
        defer: (sql, params, onError) => {
          if (db || (lazy && !closed)) current().defer(sql, params, onError);
          else onError?.(sqliteError('ORYX_E_SQLITE_CLOSED', 'The sqlite database is not open'));
        },
        // Opens the file (the first use of a read-only kernel) but applies nothing.
        async inspect(inspectOptions = {}) {
          const conn = db ?? await opened();
          const integrity = inspectOptions.integrity ? await checkIntegrity(conn) : undefined;
          return {
            // The configured database, also when a read-only command found none there yet (and read an empty one).
            dialect: 'sqlite', url: configured.kind === 'file' ? `file:${configured.path}` : displayUrl(configured.url), owners: await gate.report(), recorded: await recordedVersions(conn), warnings: [...warnings],
            ...(integrity ? { integrity: { ok: integrity.ok, check: integrity.check, problems: integrity.problems, ...(integrity.ok ? {} : { repair: repairCommand(integrity) }) } } : {}),
          };
        },
        async backup(to) {
          if (!file || inMemory) {
            throw sqliteError('ORYX_E_SQLITE_BACKUP', nothingYet ? `There is no database at ${file} yet: nothing to back up` : `${displayUrl(opts.url)} is not a database file on this machine; back it up where it lives`);
          }
          const out = path.resolve(to);
          if (existsSync(out)) throw sqliteError('ORYX_E_SQLITE_BACKUP', `${out} already exists; a backup never overwrites a file`, { data: { file: out } });
          try {
            await mkdir(path.dirname(out), { recursive: true });
            await (db ?? await opened()).backup(out);
          } catch (error) {
            if (isOryxError(error) && error.code !== 'ORYX_E_SQLITE_QUERY') throw error;
            throw sqliteError('ORYX_E_SQLITE_BACKUP', `Backing up ${file} to ${out} failed: ${errorMessage(error)}`, { cause: error, data: { file: out } });
          }
          return { file: out, bytes: (await stat(out)).size };
        },
      };
      ctx.provide('database', service);
      // Deferred, the store's own tables are remembered first, so they are made before the others' at the first use.
      if (lazy) await gate.migrate(OWNER, MIGRATIONS);
      const stores = attachStore(ctx, {
        db: current, migrate: migrateAny, leaseMs: opts.leaseMs, lockTimeoutMs: opts.lockTimeoutMs, appendRetries: opts.appendRetries,
        writeLater: (sql, params, onError) => service.defer(sql, params, onError),
      });

      ctx.hooks.close.tapPromise(async () => {
        closed = true;
        await readying?.catch(() => {});
        const open = db;
        db = undefined;
        if (!open) {
          await connection?.then((c) => c.close(), () => {});
          return;
        }
        await stores.sessions.close().catch(() => {});
        if (!ctx.readOnly) await writeMark(open);
        await open.close();
      });

      if (lazy) return;
      db = await opened();
      if (!ctx.readOnly && !db.readOnly) db.onIdle(() => { if (db) void writeMark(db); });

      // First of all init taps: other plugins' init taps may already query the database.
      ctx.hooks.init.tapPromise({ stage: STAGE.GUARD }, async () => {
        await enableWal(current());
        const applied = await migrateAny(OWNER, MIGRATIONS);
        if (applied.length) ctx.log.debug(`applied migrations ${applied.join(', ')} to ${current().url}`);
      });
    },
  };
}

/** Opens the file; one SQLite calls "not a database" whose schema is still there is named for what it is: a damaged header. */
async function openChecked(target: DatabaseTarget, options: OpenOptions): Promise<OpenDatabase> {
  try {
    return await openDatabase(target, options);
  } catch (error) {
    if (isOryxError(error) && error.code === 'ORYX_E_SQLITE_NOT_A_DATABASE' && target.kind === 'file' && await damagedHeader(target.path)) {
      throw sqliteError('ORYX_E_SQLITE_HEADER_DAMAGED', `The header of the database ${target.path} (its first page) is damaged: SQLite cannot read the file, though its tables are still in it`, {
        cause: error, data: { file: target.path },
      });
    }
    throw error;
  }
}

/** The command that repairs what the check found. */
function repairCommand(report: IntegrityReport): string {
  const indexes = report.problems.every((p) => p.kind === 'index');
  return indexes
    ? `oryx db repair (rebuilds ${[...new Set(report.problems.map((p) => p.name))].join(', ')} from their tables, keeping the damaged file)`
    : 'oryx db repair (copies every readable row into a fresh file and rebuilds the indexes, keeping the damaged file)';
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
