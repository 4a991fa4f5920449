import { randomUUID } from 'node:crypto';
import { escapeControls } from '@oryxos/plugin-kit';
import type { Logger } from '@oryxos/kernel';
import type { WebIdentity } from './auth.ts';

const INCOMING_ID = /^[A-Za-z0-9._:@+\/=-]{1,128}$/;

/**
 * The Hono environment of the app: the request id and the caller's identity (set by the auth
 * check on every route but `/health`) travel as context variables.
 */
export type WebEnv = { Variables: { requestId: string; identity: WebIdentity } };

/** The request id of a request (see {@link requestIdFor}). */
export function requestIdOf(c: { get(key: 'requestId'): string }): string {
  return c.get('requestId') ?? '-';
}

/**
 * The id of a request: its incoming `x-request-id` when that is a plain token, else a new UUID.
 * It is returned in the `x-request-id` response header and starts the request's log line.
 */
export function requestIdFor(incoming: string | undefined): string {
  return incoming !== undefined && INCOMING_ID.test(incoming) ? incoming : randomUUID();
}

/** Printable ASCII without spaces: a path made only of these needs no escaping. */
const PLAIN = /^[\x21-\x7e]*$/;

/**
 * Writes a request's one log line: `web: <id> <METHOD> <path> <status> <ms>ms` (the plugin's
 * logger names it), a warning for a 5xx. The path is logged as it came, percent-encoded
 * (`/x%0Aweb…`), never decoded, with any control character escaped: a request cannot forge a
 * second line. (The id is a plain token or a UUID and Node allows only token characters in a
 * method, so the path is the only part that may need escaping.)
 */
export function logRequest(log: Logger, id: string, method: string, path: string, status: number, ms: number): void {
  const line = `${id} ${method} ${PLAIN.test(path) ? path : escapeControls(path, { oneLine: true })} ${status} ${Math.round(ms)}ms`;
  if (status >= 500) log.warn(line);
  else log.info(line);
}

/** The request's path as it came (percent-encoded, no query) from the request target, or from the URL without one. */
export function rawPathOf(target: string | undefined, url: () => string): string {
  if (target?.startsWith('/')) {
    const query = target.indexOf('?');
    return query === -1 ? target : target.slice(0, query);
  }
  return new URL(url()).pathname;
}
