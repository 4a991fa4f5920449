import { errorMessage, isOryxError, type OryxError } from '@oryxos/provider-spec';
import { sqliteError, type SqliteErrorCode } from './errors.ts';

/** SQLite's primary result codes that have their own error code, because what to do differs. */
const BY_RESULT: Record<string, SqliteErrorCode> = {
  BUSY: 'ORYX_E_SQLITE_BUSY',
  LOCKED: 'ORYX_E_SQLITE_BUSY',
  CORRUPT: 'ORYX_E_SQLITE_CORRUPT',
  NOTADB: 'ORYX_E_SQLITE_NOT_A_DATABASE',
  IOERR: 'ORYX_E_SQLITE_IO',
  READONLY: 'ORYX_E_SQLITE_READONLY',
  FULL: 'ORYX_E_SQLITE_FULL',
  CANTOPEN: 'ORYX_E_SQLITE_CANTOPEN',
};

/** Primary result codes by number, for drivers that report only `ConnectionFailed(…: 14)`. */
const BY_NUMBER: Record<number, string> = { 5: 'SQLITE_BUSY', 6: 'SQLITE_LOCKED', 8: 'SQLITE_READONLY', 10: 'SQLITE_IOERR', 11: 'SQLITE_CORRUPT', 13: 'SQLITE_FULL', 14: 'SQLITE_CANTOPEN', 26: 'SQLITE_NOTADB' };

/**
 * The SQLite result code of a driver error (`SQLITE_CORRUPT`, `SQLITE_IOERR_SHORT_READ`, …),
 * or undefined when the error carries none (a network failure).
 */
export function sqliteCodeOf(error: unknown): string | undefined {
  const e = error as { code?: unknown; extendedCode?: unknown; rawCode?: unknown } | undefined;
  for (const code of [e?.extendedCode, e?.code]) if (typeof code === 'string' && code.startsWith('SQLITE_')) return code;
  if (typeof e?.rawCode === 'number' && BY_NUMBER[e.rawCode & 0xff]) return BY_NUMBER[e.rawCode & 0xff];
  const opened = /ConnectionFailed\(.*: (\d+)"?\)/.exec(errorMessage(error));
  return opened ? BY_NUMBER[Number(opened[1]) & 0xff] : undefined;
}

/** The error code for a SQLite result code: its own for the ones in the table, else `fallback`. */
function codeFor(sqliteCode: string | undefined, fallback: SqliteErrorCode): SqliteErrorCode {
  return (sqliteCode && BY_RESULT[sqliteCode.split('_')[1] ?? '']) || fallback;
}

/** Wraps a driver error in an OryxError that names the SQLite code and the statement. */
export function sqlFailure(error: unknown, sql: string): Error {
  if (isOryxError(error)) return error;
  const sqliteCode = sqliteCodeOf(error) ?? 'UNKNOWN';
  const statement = sql.replace(/\s+/g, ' ').trim().slice(0, sql.startsWith('COMMIT of') ? 240 : 160);
  const message = errorMessage(error).replace(/^SQLITE_[A-Z_]+: /, '');
  const code = codeFor(sqliteCode, 'ORYX_E_SQLITE_QUERY');
  return sqliteError(code, `${message} (${sqliteCode}) in: ${statement}`, {
    cause: error, retryable: code === 'ORYX_E_SQLITE_BUSY', data: { sqliteCode, sql: statement },
  });
}

/** A failure to open `shown` (a URL without secrets): its own code when SQLite said why. */
export function openFailure(error: unknown, shown: string): OryxError {
  const sqliteCode = sqliteCodeOf(error);
  const message = errorMessage(error).replace(/^SQLITE_[A-Z_]+: /, '');
  return sqliteError(codeFor(sqliteCode, 'ORYX_E_SQLITE_OPEN'), `Could not open the database ${shown}: ${message}${sqliteCode ? ` (${sqliteCode})` : ''}`, {
    cause: error, data: { url: shown, ...(sqliteCode ? { sqliteCode } : {}) },
  });
}
