import { OryxError } from '@oryxos/provider-spec';

/**
 * Every error code this package raises, with how to fix it. `test/error-codes.test.ts`
 * checks this table against README.md so the two never drift.
 *
 * @example
 * if (isOryxError(e) && e.code in ERROR_CODES) console.error(ERROR_CODES[e.code as SqliteErrorCode]);
 */
export const ERROR_CODES = {
  ORYX_E_SQLITE_OPTIONS: 'Fix the sqlite() option the message names in oryx.config.ts.',
  ORYX_E_SQLITE_OPEN: 'Check the url option: a libsql server must be reachable from here and accept the authToken.',
  ORYX_E_SQLITE_CANTOPEN: 'The database file could not be opened or created: make sure its folder exists and is writable by this user, and that the path is a file, not a folder.',
  ORYX_E_SQLITE_NOT_A_DATABASE: 'The file is not a SQLite database (or it is encrypted): point url at the right file, or move this one aside to start a new database there.',
  ORYX_E_SQLITE_CORRUPT: 'The database file is damaged: stop every OryxOS process using it, copy the file (with its -wal file) aside, and restore it from a backup; `sqlite3 FILE .recover` saves what is readable.',
  ORYX_E_SQLITE_IO: 'The operating system reported a disk I/O error: check the disk and file system (dmesg, free space, a network mount that went away), then retry; if it persists, restore from a backup.',
  ORYX_E_SQLITE_READONLY: 'The database cannot be written: make the file, its -wal and -shm files and their folder writable by this user (and the file system writable), then retry.',
  ORYX_E_SQLITE_FULL: 'The disk (or the database size limit) is full: free space, then retry; nothing committed before was lost.',
  ORYX_E_SQLITE_SCHEMA_NEWER: 'The database was written by a newer @oryxos/plugin-sqlite: upgrade the plugin, or point url at another database.',
  ORYX_E_SQLITE_MIGRATION: 'A migration failed and was rolled back; read the cause (disk full, read-only file) and start again.',
  ORYX_E_SQLITE_QUERY: 'A SQL statement failed; the message names the SQLite error and the statement.',
  ORYX_E_SQLITE_BUSY: 'Another process held the database write lock longer than busyTimeoutMs: retry, close the other writer, or raise busyTimeoutMs.',
  ORYX_E_SQLITE_CLOSED: 'The database is not open (the kernel has not started or has closed); use it between start and close.',
  ORYX_E_SQLITE_BAD_CURSOR: 'Pass the nextCursor of a previous page unchanged, or omit the cursor to start from the newest session.',
  ORYX_E_SQLITE_CORRUPT_ROW: 'Run `oryx sessions repair ID` with the session the message names: the unreadable messages move to the messages_quarantine table and the session works again.',
  ORYX_E_SQLITE_SESSION_EXISTS: 'A session with that id already exists; omit the id to get a fresh one.',
  ORYX_E_SQLITE_SESSION_NOT_FOUND: 'The session was deleted (or never existed) while a run was writing to it; start a new session.',
  ORYX_E_SQLITE_APPEND_CONFLICT: 'Another writer kept taking the same message positions; make sure every writer goes through AgentService (which locks the session).',
  ORYX_E_SQLITE_SESSION_BUSY: 'Another process is running this session; wait for it to finish, or raise lockTimeoutMs (`oryx sessions delete --force` stops it first).',
} as const;

export type SqliteErrorCode = keyof typeof ERROR_CODES;

/** An OryxError with one of this package's codes; the hint defaults to the table's. */
export function sqliteError(
  code: SqliteErrorCode, message: string, options: { hint?: string; cause?: unknown; retryable?: boolean; data?: Record<string, unknown> } = {},
): OryxError {
  return new OryxError(code, message, { ...options, hint: options.hint ?? ERROR_CODES[code] });
}
