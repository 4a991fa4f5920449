import { OryxError } from '@oryxos/provider-spec';

/**
 * Every error code this package raises, with how to fix it. `test/error-codes.test.ts` checks
 * this table against README.md so the two never drift. Conditions of the session store itself
 * (a session another process runs, a damaged row, a bad cursor) keep the store's codes
 * (`ORYX_E_SQLITE_SESSION_BUSY`, …) on both engines, so clients handle one code per condition.
 *
 * @example
 * if (isOryxError(e) && e.code in ERROR_CODES) console.error(ERROR_CODES[e.code as PgErrorCode]);
 */
export const ERROR_CODES = {
  ORYX_E_PG_OPTIONS: 'Fix the postgres() option the message names in oryx.config.ts.',
  ORYX_E_PG_CONNECT: 'Could not connect: check the url (host, port, database name, user, password) and that the server accepts this host (pg_hba.conf) and, with ssl, its certificate.',
  ORYX_E_PG_UNAVAILABLE: 'The database stopped answering (network down, server restarting or overloaded): the statement was not committed; retry once the server is reachable (`oryx db status`).',
  ORYX_E_PG_TIMEOUT: 'A statement ran longer than statementTimeoutMs and the server cancelled it (nothing of it was committed): raise statementTimeoutMs, or find what holds the lock (pg_stat_activity).',
  ORYX_E_PG_CONFLICT: 'A deadlock or serialization failure: the transaction was rolled back; it is retried automatically where it is safe, otherwise retry it.',
  ORYX_E_PG_READONLY: 'The server accepts only reads (a standby, or default_transaction_read_only): point url at the primary (target_session_attrs=read-write with several hosts).',
  ORYX_E_PG_QUERY: 'A SQL statement failed; the message names the PostgreSQL error (SQLSTATE) and the statement.',
  ORYX_E_PG_SCHEMA_NEWER: 'The database was migrated by a newer version of the plugin the message names: upgrade OryxOS on this host, or point url at another database. Nothing was changed.',
  ORYX_E_PG_MIGRATION: 'A migration failed and was rolled back (nothing of it is left); read the cause, fix it, and run `oryx db migrate` again.',
  ORYX_E_PG_MIGRATION_PENDING: 'The database needs migrations this process is not allowed to apply (autoMigrate: false): run `oryx db migrate` once, then start the processes.',
  ORYX_E_PG_CLOSED: 'The database is not open (the kernel has not started or has closed); use it between start and close.',
} as const;

export type PgErrorCode = keyof typeof ERROR_CODES;

/** An OryxError with one of this package's codes; the hint defaults to the table's. */
export function pgError(
  code: PgErrorCode, message: string, options: { hint?: string; cause?: unknown; retryable?: boolean; data?: Record<string, unknown> } = {},
): OryxError {
  return new OryxError(code, message, { ...options, hint: options.hint ?? ERROR_CODES[code] });
}
