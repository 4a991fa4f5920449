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
  ORYX_E_SQLITE_CORRUPT: 'The database file is damaged: `oryx doctor` names what (a table or an index); stop every OryxOS process using it and run `oryx db repair`, which rebuilds damaged indexes and recovers the readable rows into a fresh file, keeping the damaged one beside it.',
  ORYX_E_SQLITE_HEADER_DAMAGED: 'The first page (the header) of the database file is damaged, so SQLite cannot read any of it: restore the file from a backup (`oryx db backup` makes them); keep the damaged file, its pages may still be read by a recovery tool.',
  ORYX_E_SQLITE_IO: 'The operating system reported a disk I/O error: check the disk and file system (dmesg, free space, a network mount that went away), then retry; if it persists, restore from a backup.',
  ORYX_E_SQLITE_READONLY: 'The database cannot be written: make the file, its -wal and -shm files and their folder writable by this user (and the file system writable), then retry.',
  ORYX_E_SQLITE_FULL: 'The disk (or the database size limit) is full: free space, then retry; nothing committed before was lost.',
  ORYX_E_SQLITE_SCHEMA_NEWER: 'The database was written by a newer @oryxos/plugin-sqlite: upgrade the plugin, or point url at another database.',
  ORYX_E_SQLITE_MIGRATION: 'A migration failed and was rolled back; read the cause (disk full, read-only file) and start again.',
  ORYX_E_SQLITE_QUERY: 'A SQL statement failed; the message names the SQLite error and the statement.',
  ORYX_E_SQLITE_BUSY: 'Another process held the database write lock longer than busyTimeoutMs: retry, close the other writer, or raise busyTimeoutMs.',
  ORYX_E_SQLITE_OLDER_THAN_SEEN: 'The database holds less than this installation saw in it (its -wal file was lost, or an older copy was put back): put back the newer file (with its -wal) if you have it; if this older database is the one you want, delete the high-water mark file the message names and start again.',
  ORYX_E_SQLITE_BACKUP: 'Give `oryx db backup` a path that does not exist yet, in a folder this user can write, on a disk with room for the database; only a local file database can be backed up this way (a libsql server has its own backups).',
  ORYX_E_SQLITE_REPAIR: 'Stop every OryxOS process that uses the database (`oryx web`, schedulers), then run `oryx db repair` again; read the cause in the message when it is something else (disk full, read-only folder).',
  ORYX_E_SQLITE_CLOSED: 'The database is not open (the kernel has not started or has closed); use it between start and close.',
} as const;

export type SqliteErrorCode = keyof typeof ERROR_CODES;

/** An OryxError with one of this package's codes; the hint defaults to the table's. */
export function sqliteError(
  code: SqliteErrorCode, message: string, options: { hint?: string; cause?: unknown; retryable?: boolean; data?: Record<string, unknown> } = {},
): OryxError {
  return new OryxError(code, message, { ...options, hint: options.hint ?? ERROR_CODES[code] });
}
