import type { IncomingMessage } from 'node:http';
import type { Logger } from '@oryxos/kernel';
import type { OryxError } from '@oryxos/provider-spec';
import type { Context, MiddlewareHandler } from 'hono';
import { OPERATOR } from './auth.ts';
import { SECURITY_HEADERS, type Gate, type RequestFacts } from './guards.ts';
import { headerOf, incomingOf } from './incoming.ts';
import { logRequest, rawPathOf, requestIdFor, type WebEnv } from './request-log.ts';

/**
 * What the Node front (`front.ts`) found about a request before Hono saw it: its id (already in
 * the `x-request-id` response header, with the security headers) and, when it could tell
 * without the routed path or an awaited token, the outcome of the checks. Kept on Node's
 * request under {@link ADMISSION}.
 */
export interface Admission {
  id: string;
  /** False when the front left the checks to the middleware (an unusual path, no Host, the token not loaded yet). */
  checked: boolean;
  /** The Host check's or the shutdown gate's refusal. */
  entry?: OryxError;
  /** The Origin check's, auth's or the content type's refusal. */
  access?: OryxError;
  /** True when the request passed auth on a path that needs it (it acts as the operator). */
  authenticated?: boolean;
  /**
   * Set when a route may write its answer straight to Node's response (`replyJson`): the front
   * set every header the answer needs, and no middleware (CORS) adds any after the route. It is
   * what the route then returns: `@hono/node-server`'s "already sent" response.
   */
  sent?: Response;
}

/** Where the front keeps a request's {@link Admission} on Node's request. */
export const ADMISSION = Symbol('oryx.admission');

/** What the middleware needs of the server: the checks, the log, the token to compare with, the app's error answer. */
export interface AdmissionSource {
  gate: Gate;
  log: Logger;
  /** The token requests must carry; undefined with `auth: 'none'`. */
  token(): Promise<string | undefined>;
  /** The app's answer to an error (its `onError`). */
  answer(error: unknown, c: Context<WebEnv>): Response;
}

/** The front's admission of the request, when it came through the front. */
export function admissionOf(c: Context<WebEnv>): Admission | undefined {
  return (incomingOf(c) as (IncomingMessage & { [ADMISSION]?: Admission }) | undefined)?.[ADMISSION];
}

/** A request's facts from the Hono context (the routed path, headers from Node's when there). */
function factsOf(c: Context<WebEnv>): RequestFacts {
  return {
    method: c.req.method,
    path: c.req.path,
    host: headerOf(c, 'host') ?? new URL(c.req.url).host,
    header: (name) => headerOf(c, name),
  };
}

/**
 * The checks as Hono middleware, in one layer or two: `entry` (request id, security headers,
 * the log line, the Host check and the shutdown gate) goes first, `access` (Origin, auth, JSON
 * content type; it puts `identity` on the context) after CORS when CORS is on;
 * without CORS `all` does both in one layer. A request the Node front admitted costs little
 * here: its checks are done, the middleware only answers what they found. A request that did
 * not come through the front (`app.request()`, or the app on a server of one's own) gets every
 * check here, from the same {@link Gate}.
 */
export function admission(source: AdmissionSource, stage: 'entry' | 'access' | 'all'): MiddlewareHandler<WebEnv> {
  const entry = stage !== 'access';
  const access = stage !== 'entry';
  return async function oryxAdmission(c, next) {
    const front = admissionOf(c);
    if (front) c.set('requestId', front.id);
    if (front?.checked) {
      if (entry && front.entry) throw shutdownClose(c, front.entry);
      if (access) {
        if (front.access) throw front.access;
        if (front.authenticated) c.set('identity', OPERATOR);
      }
      return next();
    }
    if (front || !entry) {
      // The front (when there) set the id and the headers and writes the log line; the checks are made here.
      const refused = await refusal(c, source, entry, access);
      if (refused) throw refused;
      return next();
    }
    // Not through the front: the id, the headers and the log line are made here too.
    const id = requestIdFor(headerOf(c, 'x-request-id'));
    c.set('requestId', id);
    const started = performance.now();
    const refused = await refusal(c, source, entry, access).catch((error: unknown) => error);
    if (refused) c.res = source.answer(refused, c);
    else await next();
    const headers = c.res.headers;
    for (const [name, value] of SECURITY_HEADERS) if (!headers.has(name)) headers.set(name, value);
    headers.set('x-request-id', id);
    logRequest(source.log, id, c.req.method, rawPathOf(incomingOf(c)?.url, () => c.req.url), c.res.status, performance.now() - started);
  };
}

/** The first check that refuses the request, of the stages asked for; sets `identity` once auth lets it through. */
async function refusal(c: Context<WebEnv>, source: AdmissionSource, entry: boolean, access: boolean): Promise<OryxError | undefined> {
  const facts = factsOf(c);
  if (entry) {
    const refused = source.gate.entryError(facts);
    if (refused) return shutdownClose(c, refused);
  }
  if (access) {
    const refused = source.gate.accessError(facts, await source.token());
    if (refused) return refused;
    if (source.gate.authenticated(facts)) c.set('identity', OPERATOR);
  }
  return undefined;
}

/** The shutdown gate's answer also closes the connection. */
function shutdownClose(c: Context<WebEnv>, error: OryxError): OryxError {
  if (error.code === 'ORYX_E_WEB_SHUTTING_DOWN') c.header('connection', 'close');
  return error;
}
