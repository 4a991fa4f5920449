import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from '@oryxos/kernel';
import { ADMISSION, type Admission } from './admission.ts';
import { SECURITY_HEADERS, type Gate, type RequestFacts } from './guards.ts';
import { logRequest, requestIdFor } from './request-log.ts';

/**
 * A request target whose path Hono routes exactly as it reads: it starts with `/`, has no
 * percent-escape, backslash or fragment, and no segment starts with a dot (so no `.`/`..`
 * segment a URL parser would resolve). Others are checked by the middleware on the routed path.
 */
const PLAIN_TARGET = /^(?=\/)(?:\/(?!\.)|[A-Za-z0-9._~!$&'()*+,;=:@-])*(?:\?.*)?$/s;

/**
 * The server's request listener: the work every request needs, done once on Node's own request
 * and response instead of in Hono middleware layers (each a promise, each header set on a fetch
 * `Headers`). It gives the request its id, sets the id and the security headers on the response
 * (a route's own value wins: Node merges the route's headers over them), runs the {@link Gate}'s
 * checks on Node's parsed headers, keeps what they found on the request for the app's admission
 * middleware to answer (so a refusal is shaped and answered by the app, like any error), hands
 * the request to `next` (Hono) and writes the log line when the response is done. A request
 * whose path Hono would route differently from how it reads (percent-escapes, dot segments),
 * without a Host, or arriving before the token is loaded, is checked by the middleware instead.
 */
export function frontListener(options: {
  gate: Gate;
  log: Logger;
  /** The token when it is loaded (undefined inside: `auth: 'none'`); undefined while it is not. */
  knownToken(): { value: string | undefined } | undefined;
  next(incoming: IncomingMessage, outgoing: ServerResponse): Promise<unknown>;
}): RequestListener {
  const { gate, log, knownToken, next } = options;
  return (incoming, outgoing) => {
    const started = performance.now();
    const headers = incoming.headers;
    const given = headers['x-request-id'];
    const id = requestIdFor(typeof given === 'string' ? given : undefined);
    for (const [name, value] of SECURITY_HEADERS) outgoing.setHeader(name, value);
    outgoing.setHeader('x-request-id', id);
    const method = incoming.method ?? 'GET';
    const target = incoming.url ?? '';
    const admission: Admission = { id, checked: false };
    const token = knownToken();
    const host = headers.host;
    if (token !== undefined && host !== undefined && PLAIN_TARGET.test(target)) {
      const query = target.indexOf('?');
      const facts: RequestFacts = {
        method, host, path: query === -1 ? target : target.slice(0, query),
        header: (name) => {
          const value = headers[name];
          return Array.isArray(value) ? value.join(', ') : value;
        },
      };
      admission.checked = true;
      admission.entry = gate.entryError(facts);
      if (!admission.entry) {
        admission.access = gate.accessError(facts, token.value);
        admission.authenticated = !admission.access && gate.authenticated(facts);
      }
    }
    (incoming as IncomingMessage & { [ADMISSION]?: Admission })[ADMISSION] = admission;
    const path = pathOf(target);
    void next(incoming, outgoing).then(() => logRequest(log, id, method, path, outgoing.statusCode, performance.now() - started));
  };
}

/** The request's path as it came (percent-encoded, no query). */
function pathOf(target: string): string {
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}
