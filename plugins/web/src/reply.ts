import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import { admissionOf } from './admission.ts';
import type { WebEnv } from './request-log.ts';

/**
 * Answers JSON. A request that came through the Node front (with no CORS middleware to add
 * headers after the route) is answered straight on Node's response, which already carries the
 * request id and the security headers: no fetch `Response`, no web stream for its body, and
 * `@hono/node-server` is told it was sent. Any other request (`app.request()`) gets `c.json()`.
 * The answer carries `headers` and no other header a route set with `c.header()`: a route passes
 * here every header of its own.
 *
 * @example
 * return replyJson(c, { status: 'ok' });
 */
export function replyJson(c: Context<WebEnv>, body: unknown, status = 200, headers?: Record<string, string>): Response {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  const sent = admissionOf(c)?.sent;
  if (!outgoing || !sent || outgoing.headersSent) return c.json(body, status as 200, headers);
  const text = JSON.stringify(body);
  outgoing.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  outgoing.end(text);
  return sent;
}
