/**
 * @oryxos/sql-store: the session store every OryxOS store plugin drives — sessions, messages
 * (one row each, keyed by `(session_id, seq)`), call-start marks, tags, a door's outside ids,
 * cross-process leases, run records from start to end, the message codec, the store's schema
 * for each engine, migration control and copying between databases. Dialect-neutral: a plugin
 * (sqlite, postgres) brings a driver with the `database` service's statements and transactions;
 * the few statements that differ pick their text by `dialect`.
 *
 * @example
 * import { attachStore, SQLITE_STORE_MIGRATIONS } from '@oryxos/sql-store';
 * const { sessions } = attachStore(ctx, { db: () => current(), migrate: service.migrate, leaseMs: 30_000, lockTimeoutMs: 120_000, appendRetries: 5 });
 */
export { SqlSessionStore, type SqlSessionStoreOptions, type StoreLog } from './session-store.ts';
export { MESSAGE_COUNT, appendMessages } from './append.ts';
export { SqlRunRecordStore, RUN_MIGRATIONS, RUNS_OWNER, type RunWrite } from './run-records.ts';
export { attachStore, recordOf, type AttachOptions } from './attach.ts';
export { SessionLeases, type AcquireMode } from './leases.ts';
export { MESSAGE_COLUMNS, encodeMessage, decodeMessage, tryDecodeMessage, type MessageRow } from './codec.ts';
export { SQLITE_STORE_MIGRATIONS, POSTGRES_STORE_MIGRATIONS } from './schema.ts';
export { SchemaGate, type MigrationEngine } from './schema-gate.ts';
export { migrationControl, withMigrationControl, reportingMigrate, type MigrationControl, type MigrationReport } from './migration-control.ts';
export { copyDatabase, type CopiedTable, type CopyReport } from './copy.ts';
export { isUniqueViolation } from './sql.ts';
export { STORE_ERROR_CODES, storeError, type StoreErrorCode } from './errors.ts';
export type { StoreDatabase, SyncTx, DatabaseDriver } from './store-database.ts';
