import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { webError } from './errors.ts';

/**
 * Compares two secrets in constant time. Both are hashed first, so the comparison takes the
 * same time whatever the lengths (timingSafeEqual needs equal-length buffers).
 *
 * @example
 * safeEqual(presented, process.env.ORYX_WEB_TOKEN!); // true only for the exact token
 */
export function safeEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && given.length === expected.length;
}

/**
 * Requires `Authorization: Bearer <token>` on every route not listed in `open`; 401
 * ORYX_E_WEB_UNAUTHORIZED otherwise. CORS preflights are answered before this runs.
 */
export function bearerAuth(token: string, open: Set<string>): MiddlewareHandler {
  return async function oryxBearerAuth(c, next) {
    if (open.has(c.req.path)) return next();
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match) {
      throw webError('ORYX_E_WEB_UNAUTHORIZED', header ? 'The Authorization header is not a Bearer token' : 'This server requires a bearer token');
    }
    if (!safeEqual(match[1]!.trim(), token)) throw webError('ORYX_E_WEB_UNAUTHORIZED', 'The bearer token is wrong');
    return next();
  };
}
