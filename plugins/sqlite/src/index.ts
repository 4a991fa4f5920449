/**
 * @oryxos/plugin-sqlite: the store kit's durable sessions and run records (one row per message,
 * restart- and crash-safe) and the shared `database` service, on an embedded libsql file or a
 * libsql server; the database kept whole in its main file, backed up while in use, checked and
 * repaired.
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
export { checkIntegrity, damagedHeader, type IntegrityReport, type IntegrityProblem } from './integrity.ts';
export { HighWater, observe, type Seen } from './high-water.ts';
export { repairDatabase, type RepairReport } from './repair.ts';
export { driver } from './driver.ts';
export { resolveTarget, displayUrl, type DatabaseTarget } from './url.ts';
