import type { SqlParams, SqlValue } from '@oryxos/kernel';

/**
 * Both drivers bind every JS number as REAL, so `LIMIT ?` and untyped columns would get 1.0
 * for 1; integers go as bigint to be stored as INTEGER. Booleans become 0/1 (the embedded
 * driver aborts the process on a boolean).
 */
export function toDriverValue(value: SqlValue | undefined): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1n : 0n;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (value instanceof Uint8Array && !Buffer.isBuffer(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
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

/** Blobs come back as ArrayBuffer from both drivers; the service promises Uint8Array. */
export function fromDriverValue(value: unknown): unknown {
  return value instanceof ArrayBuffer ? new Uint8Array(value) : value;
}
