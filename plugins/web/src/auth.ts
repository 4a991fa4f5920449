import type { OryxError } from '@oryxos/provider-spec';
import { webError } from './errors.ts';

/**
 * Compares a presented secret with the expected one in constant time: the bytes are compared
 * with `timingSafeEqual`, which takes the same time wherever they differ; only a length that
 * differs answers at once. That reveals the expected length and nothing of its content, and the
 * length is no secret (a generated token is always 43 characters; a configured one at least 16,
 * and guessing its length narrows nothing down). No hash is needed for that, and none is made.
 *
 * @example
 * safeEqual(presented, process.env.ORYX_WEB_TOKEN!); // true only for the exact token
 */
export function safeEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = bytesOf(expected);
  // node:crypto loads on first use, not with the plugin: a read command (`oryx agents`) never needs it.
  return a.length === b.length && process.getBuiltinModule('node:crypto').timingSafeEqual(a, b);
}

/** The expected token's bytes, kept: they are the same on every request (until rotated). */
let last: { text: string; bytes: Buffer } | undefined;
function bytesOf(expected: string): Buffer {
  if (last?.text !== expected) last = { text: expected, bytes: Buffer.from(expected, 'utf8') };
  return last.bytes;
}

const BEARER = /^Bearer\s+(.+)$/i;

/**
 * 401 ORYX_E_WEB_UNAUTHORIZED unless `header` (the request's `Authorization`) is `Bearer
 * <expected>`; undefined when it is.
 */
export function bearerError(header: string | undefined, expected: string): OryxError | undefined {
  const match = BEARER.exec(header ?? '');
  if (!match) return webError('ORYX_E_WEB_UNAUTHORIZED', header ? 'The Authorization header is not a Bearer token' : 'This server requires a bearer token');
  return safeEqual(match[1]!.trim(), expected) ? undefined : webError('ORYX_E_WEB_UNAUTHORIZED', 'The bearer token is wrong');
}

/**
 * Who a request acts as. The auth middleware puts it on the Hono context of every request it
 * lets through (every route but `/health`): `c.get('identity')`. With the server's single
 * token (configured or generated), and with `auth: 'none'`, it is {@link OPERATOR}: the person
 * who runs the server, who may name the user a run acts for.
 *
 * @example
 * const { name, namesUsers } = c.get('identity');
 */
export interface WebIdentity {
  /** Stable name of the caller; `operator` for the server's own token. */
  name: string;
  /** Whether this caller may name the user a run acts for (e.g. OpenAI's `user` field). */
  namesUsers: boolean;
}

/** The identity of the server's own token (and of every caller with `auth: 'none'`). */
export const OPERATOR: WebIdentity = Object.freeze({ name: 'operator', namesUsers: true });
