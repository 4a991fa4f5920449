import type { SqlParams, SqlValue } from '@oryxos/contracts';

/*
 * Exact strings. SQLite's TEXT cannot hold every JavaScript string: both drivers read a TEXT
 * value up to its first NUL ('a\0b' comes back 'a'), and a lone surrogate ('\uD800') has no
 * UTF-8 form, so it is stored as U+FFFD. Such a string is stored as a BLOB instead, holding
 * `oryx:s:` and the string as JSON (which escapes both), and read back as the same string.
 * Every other string stays plain TEXT, readable and searchable in SQL. A real BLOB whose bytes
 * happen to start with `oryx:` is stored behind `oryx:b:`, so the two can never be confused.
 */
const TAGGED = Buffer.from('oryx:');
const STRING_TAG = Buffer.from('oryx:s:');
const BLOB_TAG = Buffer.from('oryx:b:');
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when SQLite TEXT cannot hold the string as it is (a NUL, or a lone surrogate). */
export function needsEncoding(text: string): boolean {
  return text.includes('\0') || LONE_SURROGATE.test(text);
}

/**
 * Both drivers bind every JS number as REAL, so `LIMIT ?` and untyped columns would get 1.0
 * for 1; integers go as bigint to be stored as INTEGER. Booleans become 0/1 (the embedded
 * driver aborts the process on a boolean). Strings TEXT cannot hold become tagged BLOBs.
 */
export function toDriverValue(value: SqlValue | undefined): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return needsEncoding(value) ? Buffer.concat([STRING_TAG, Buffer.from(JSON.stringify(value))]) : value;
  if (typeof value === 'boolean') return value ? 1n : 0n;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (value instanceof Uint8Array) {
    const bytes = Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    return startsWith(bytes, TAGGED) ? Buffer.concat([BLOB_TAG, bytes]) : bytes;
  }
  return value;
}

/** Positional params as an array; named params keyed without their `:`/`@`/`$` prefix. */
export function toDriverParams(params: SqlParams | undefined): unknown[] | Record<string, unknown> {
  if (params === undefined) return [];
  if (Array.isArray(params)) return params.map(toDriverValue);
  const named: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) named[key.replace(/^[:@$]/, '')] = toDriverValue(value);
  return named;
}

/**
 * Blobs come back as ArrayBuffer (or Buffer) from the drivers; the service promises
 * Uint8Array, and a tagged string comes back as the string. A tagged value that does not
 * decode (a damaged row) is returned as its raw bytes, for the reader to report.
 */
export function fromDriverValue(value: unknown): unknown {
  if (!(value instanceof ArrayBuffer || value instanceof Uint8Array)) return value;
  const bytes = value instanceof ArrayBuffer ? Buffer.from(value) : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (startsWith(bytes, STRING_TAG)) {
    try {
      const text: unknown = JSON.parse(bytes.subarray(STRING_TAG.length).toString('utf8'));
      if (typeof text === 'string') return text;
    } catch { /* damaged: the raw bytes below */ }
  } else if (startsWith(bytes, BLOB_TAG)) {
    return new Uint8Array(bytes.subarray(BLOB_TAG.length));
  }
  return new Uint8Array(bytes);
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}
