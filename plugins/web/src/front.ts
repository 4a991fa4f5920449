import type { IncomingHttpHeaders, IncomingMessage, RequestListener, ServerResponse } from 'node:http';
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
  /**
   * `@hono/node-server`'s "already sent" response, when routes may write their answers straight
   * to Node's response (no CORS middleware adds headers after them); else undefined.
   */
  sent: Response | undefined;
  next(incoming: IncomingMessage, outgoing: ServerResponse): Promise<unknown>;
}): RequestListener {
  const { gate, log, knownToken, sent, next } = options;
  return (incoming, outgoing) => {
    const started = performance.now();
    const headers = incoming.headers;
    const given = headers['x-request-id'];
    const id = requestIdFor(typeof given === 'string' ? given : undefined);
    for (const [name, value] of SECURITY_HEADERS) outgoing.setHeader(name, value);
    outgoing.setHeader('x-request-id', id);
    const method = incoming.method ?? 'GET';
    const target = incoming.url ?? '';
    const path = pathOf(target);
    const admission: Admission = { id, checked: false, entry: undefined, access: undefined, authenticated: false, sent };
    const token = knownToken();
    const host = headers.host;
    if (token !== undefined && host !== undefined && PLAIN_TARGET.test(target)) {
      const facts = new NodeFacts(method, host, path, headers);
      admission.checked = true;
      admission.entry = gate.entryError(facts);
      if (!admission.entry) {
        admission.access = gate.accessError(facts, token.value);
        admission.authenticated = !admission.access && gate.authenticated(facts);
      }
    }
    (incoming as IncomingMessage & { [ADMISSION]?: Admission })[ADMISSION] = admission;
    // @hono/node-server answers its own failures (a 500); the line is written either way, never an unhandled rejection.
    const done = () => logRequest(log, id, method, path, outgoing.statusCode, performance.now() - started);
    void next(incoming, outgoing).then(done, done);
  };
}

/** A request's facts from Node's parsed request (a class: no closure per request). */
class NodeFacts implements RequestFacts {
  constructor(readonly method: string, readonly host: string, readonly path: string, private readonly headers: IncomingHttpHeaders) {}
  header(name: 'origin' | 'authorization' | 'content-type'): string | undefined {
    return this.headers[name];
  }
}

/** The request's path as it came (percent-encoded, no query). */
function pathOf(target: string): string {
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}
