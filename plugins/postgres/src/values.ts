import type { SqlParams, SqlValue } from '@oryxos/contracts';
import { pgError } from './errors.ts';

/*
 * Exact strings. PostgreSQL's TEXT cannot hold two kinds of JavaScript string: one with a NUL
 * character (the server refuses it: "invalid byte sequence for encoding UTF8: 0x00") and one
 * with a lone surrogate (it has no UTF-8 form; the client would send U+FFFD instead). Such a
 * string is stored as TEXT holding `oryx:s:` and the string as JSON (which escapes both), and
 * read back as the same string. A string that itself starts with `oryx:s:` is stored the same
 * way, so the two can never be confused. Every other string is stored as it is: readable in
 * psql, found by `=`, `LIKE` and indexes. (SQLite keeps the same tag in a BLOB instead.)
 */
const TAG = 'oryx:s:';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The text stored for `value`: itself, or the tagged JSON form. */
export function encodeText(value: string): string {
  return value.includes('\0') || value.startsWith(TAG) || LONE_SURROGATE.test(value) ? TAG + JSON.stringify(value) : value;
}

/** The string a stored text stands for. A tagged value that does not decode (a hand edit) is returned as stored. */
export function decodeText(stored: string): string {
  if (stored.charCodeAt(0) !== 111 || !stored.startsWith(TAG)) return stored;
  try {
    const value: unknown = JSON.parse(stored.slice(TAG.length));
    return typeof value === 'string' ? value : stored;
  } catch {
    return stored;
  }
}

/** A parameter as the client sends it. Booleans become 0/1 (the schema's INTEGER flags), blobs bytea. */
export function toPg(value: SqlValue | undefined): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return encodeText(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Uint8Array) return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return value;
}

/** The values of `params` in `$n` order: an array as it is, an object by the statement's parameter names. */
export function bindParams(params: SqlParams | undefined, names: string[] | undefined, sql: string): unknown[] {
  if (params === undefined) return [];
  if (Array.isArray(params)) return params.map(toPg);
  const byName = new Map<string, SqlValue>();
  for (const [key, value] of Object.entries(params)) byName.set(key.replace(/^[:@$]/, ''), value);
  return (names ?? []).map((name) => {
    if (!byName.has(name)) {
      throw pgError('ORYX_E_PG_QUERY', `No value for the parameter :${name} in: ${sql.replace(/\s+/g, ' ').slice(0, 160)}`, {
        hint: 'Pass an object with a key for every :name in the statement.',
      });
    }
    return toPg(byName.get(name));
  });
}

/** A row as the `database` service returns it: tagged strings decoded, bytea as Uint8Array. */
export function fromPgRow(row: Record<string, unknown>): Record<string, unknown> {
  for (const key in row) {
    const value = row[key];
    if (typeof value === 'string') row[key] = decodeText(value);
    else if (Buffer.isBuffer(value)) row[key] = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  }
  return row;
}
