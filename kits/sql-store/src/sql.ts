import { isOryxError } from '@oryxos/provider-spec';

/**
 * A unique violation of one key, as either engine's `database` service reports it: PostgreSQL
 * (SQLSTATE 23505) names the constraint or index in `data.constraint`; SQLite names the columns
 * in the message (`UNIQUE constraint failed: messages.session_id, messages.seq`).
 *
 * @example
 * if (isUniqueViolation(error, 'messages_session_seq', /messages\.session_id, messages\.seq/)) retry();
 */
export function isUniqueViolation(error: unknown, constraint: string, sqliteColumns: RegExp): boolean {
  if (!isOryxError(error)) return false;
  if (error.data?.pgCode !== undefined) return error.data.pgCode === '23505' && error.data.constraint === constraint;
  return String(error.data?.sqliteCode ?? '').startsWith('SQLITE_CONSTRAINT')
    && /(UNIQUE|PRIMARY KEY) constraint failed/.test(error.message) && sqliteColumns.test(error.message);
}
