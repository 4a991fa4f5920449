import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { webError } from './errors.ts';
import type { WebEnv } from './request-log.ts';
import { headerOf } from './incoming.ts';

/**
 * Compares two secrets in constant time. Both are hashed first, so the comparison takes the
 * same time whatever the lengths (timingSafeEqual needs equal-length buffers).
 *
 * @example
 * safeEqual(presented, process.env.ORYX_WEB_TOKEN!); // true only for the exact token
 */
export function safeEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, digestOf(expected)) && given.length === expected.length;
}

/** The expected token's digest, kept: it is the same on every request (until rotated). */
let last: { text: string; digest: Buffer } | undefined;
function digestOf(expected: string): Buffer {
  if (last?.text !== expected) last = { text: expected, digest: createHash('sha256').update(expected).digest() };
  return last.digest;
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

/**
 * Requires `Authorization: Bearer <token>` on every path for which `isOpen` is false; 401
 * ORYX_E_WEB_UNAUTHORIZED otherwise. `token()` gives the token to compare with (it may be read
 * from the token file, or rotated, while serving); undefined means `auth: 'none'`, which lets
 * every request through. Sets `identity` on the context of each request it lets through. CORS
 * preflights are answered before this runs.
 */
export function bearerAuth(token: () => Promise<string | undefined>, isOpen: (path: string) => boolean): MiddlewareHandler<WebEnv> {
  return async function oryxBearerAuth(c, next) {
    if (isOpen(c.req.path)) return next();
    const expected = await token();
    if (expected !== undefined) {
      const header = headerOf(c, 'authorization') ?? '';
      const match = /^Bearer\s+(.+)$/i.exec(header);
      if (!match) {
        throw webError('ORYX_E_WEB_UNAUTHORIZED', header ? 'The Authorization header is not a Bearer token' : 'This server requires a bearer token');
      }
      if (!safeEqual(match[1]!.trim(), expected)) throw webError('ORYX_E_WEB_UNAUTHORIZED', 'The bearer token is wrong');
    }
    c.set('identity', OPERATOR);
    return next();
  };
}
