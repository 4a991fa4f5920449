/**
 * @oryxos/plugin-sqlite: durable sessions (one row per message, restart- and crash-safe) and
 * the shared `database` service, on an embedded libsql file or a libsql server.
 *
 * @example
 * import sqlite from '@oryxos/plugin-sqlite';
 * export default defineConfig({ plugins: [sqlite()] });
 */
export { default, default as sqlite, type SqliteDatabaseService } from './plugin.ts';
export { ERROR_CODES, type SqliteErrorCode } from './errors.ts';
export { resolveOptions, DEFAULT_URL, type SqliteOptions } from './options.ts';
export { openDatabase, enableWal, type OpenDatabase, type OpenOptions, type SyncTx } from './database.ts';
export { MIGRATIONS, SCHEMA_VERSION, migrate, schemaVersion, recordedVersions, type Migration } from './migrations.ts';
export { SqliteSessionStore, storeForKernel, type SqliteSessionStoreOptions, type DamagedMessage } from './session-store.ts';
export { checkIntegrity, type IntegrityReport, type IntegrityProblem } from './integrity.ts';
export { resolveTarget, displayUrl, type DatabaseTarget } from './url.ts';
export { migrationControl, withMigrationControl, reportingMigrate, type MigrationControl, type MigrationReport } from './migration-control.ts';
export { attachRunRecords, RUN_MIGRATIONS, RUNS_OWNER } from './run-records.ts';
