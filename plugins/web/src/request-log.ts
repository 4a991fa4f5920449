import { randomUUID } from 'node:crypto';
import { escapeControls, type Logger } from '@oryxos/kernel';
import type { MiddlewareHandler } from 'hono';
import type { WebIdentity } from './auth.ts';
import { headerOf, incomingOf } from './incoming.ts';

const INCOMING_ID = /^[A-Za-z0-9._:@+\/=-]{1,128}$/;

/**
 * The Hono environment of the app: the request id and the caller's identity (set by the auth
 * middleware on every route but `/health`) travel as context variables.
 */
export type WebEnv = { Variables: { requestId: string; identity: WebIdentity } };

/** The request id of a request, set by {@link requestLog}. */
export function requestIdOf(c: { get(key: 'requestId'): string }): string {
  return c.get('requestId') ?? '-';
}

/**
 * Gives every request an id (an incoming `x-request-id` is honoured when it is a plain token),
 * returns it in the `x-request-id` response header and writes one log line per request:
 * `web: <id> <METHOD> <path> <status> <ms>ms` (the plugin's logger names it). The path is logged as it came, percent-encoded
 * (`/x%0Aweb…`), never decoded, with any control character escaped: a request cannot forge a
 * second line.
 */
export function requestLog(log: Logger): MiddlewareHandler<WebEnv> {
  return async function oryxRequestLog(c, next) {
    const incoming = headerOf(c, 'x-request-id');
    const id = incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    c.set('requestId', id);
    const started = performance.now();
    await next();
    c.res.headers.set('x-request-id', id);
    const ms = Math.round(performance.now() - started);
    const line = escapeControls(`${id} ${c.req.method} ${pathOf(c)} ${c.res.status} ${ms}ms`, { oneLine: true });
    if (c.res.status >= 500) log.warn(line);
    else log.info(line);
  };
}

/** The request's path as it came (percent-encoded, no query), without parsing a URL when Node gave it. */
function pathOf(c: Parameters<MiddlewareHandler<WebEnv>>[0]): string {
  const target = incomingOf(c)?.url;
  if (target?.startsWith('/')) {
    const query = target.indexOf('?');
    return query === -1 ? target : target.slice(0, query);
  }
  return new URL(c.req.url).pathname;
}
