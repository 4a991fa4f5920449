import { OryxError } from '@oryxos/kernel';

/**
 * Every error code this package raises, with how to fix it. `test/error-codes.test.ts`
 * checks this table against README.md so the two never drift.
 *
 * @example
 * if (isOryxError(e) && e.code in ERROR_CODES) console.error(ERROR_CODES[e.code as SqliteErrorCode]);
 */
export const ERROR_CODES = {
  ORYX_E_SQLITE_OPTIONS: 'Fix the sqlite() option the message names in oryx.config.ts.',
  ORYX_E_SQLITE_OPEN: 'Check the url option: the folder must be writable (file:) or the libsql server reachable with a valid authToken.',
  ORYX_E_SQLITE_SCHEMA_NEWER: 'The database was written by a newer @oryxos/plugin-sqlite: upgrade the plugin, or point url at another database.',
  ORYX_E_SQLITE_MIGRATION: 'A migration failed and was rolled back; read the cause (disk full, read-only file) and start again.',
  ORYX_E_SQLITE_QUERY: 'A SQL statement failed; the message names the SQLite error and the statement.',
  ORYX_E_SQLITE_BUSY: 'Another process held the database lock longer than busyTimeoutMs; retry, or raise busyTimeoutMs.',
  ORYX_E_SQLITE_CLOSED: 'The database is not open (the kernel has not started or has closed); use it between start and close.',
  ORYX_E_SQLITE_SESSION_EXISTS: 'A session with that id already exists; omit the id to get a fresh one.',
  ORYX_E_SQLITE_SESSION_NOT_FOUND: 'The session was deleted (or never existed) while a run was writing to it; start a new session.',
  ORYX_E_SQLITE_APPEND_CONFLICT: 'Another writer kept taking the same message positions; make sure every writer goes through AgentService (which locks the session).',
  ORYX_E_SQLITE_SESSION_BUSY: 'Another process is running this session; wait for it to finish, or raise lockTimeoutMs.',
} as const;

export type SqliteErrorCode = keyof typeof ERROR_CODES;

/** An OryxError with one of this package's codes; the hint defaults to the table's. */
export function sqliteError(
  code: SqliteErrorCode, message: string, options: { hint?: string; cause?: unknown; retryable?: boolean; data?: Record<string, unknown> } = {},
): OryxError {
  return new OryxError(code, message, { ...options, hint: options.hint ?? ERROR_CODES[code] });
}
