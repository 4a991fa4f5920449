import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import { registerApiRoutes } from './api-routes.ts';
import { admission } from './admission.ts';
import { registerApprovalRoutes } from './approval-routes.ts';
import { isConsolePath, registerConsoleRoutes } from './console-routes.ts';
import type { WebContext } from './context.ts';
import { docsContentSecurityPolicy, renderDocs } from './docs-page.ts';
import { asOryxError, errorBody, statusOf, webError } from './errors.ts';
import { Gate } from './guards.ts';
import { buildOpenApi, type OpenApiDocument } from './openapi.ts';
import { registerOpenAiRoutes } from './openai-routes.ts';
import { requestIdOf, type WebEnv } from './request-log.ts';
import { RouteTable } from './routes.ts';
import { registerRunRoutes } from './run-routes.ts';

/** Room for the JSON around a message (`{"message": …}`) in the raw body limit of the /api routes. */
export const ENVELOPE_BYTES = 1024;

/** What the app asks the server for on each request: both can change after the app is built. */
export interface AccessSource {
  /** The token requests must carry; undefined with `auth: 'none'`. */
  token(): Promise<string | undefined>;
  /** The host the server listens on, which answers to its own name. */
  bindHost(): string;
}

/**
 * Builds the Hono app: the request checks (request ids and log lines, security headers, the
 * Host check, the shutdown gate, CORS, the Origin check, bearer auth, the JSON content-type
 * check: see `front.ts` and `admission.ts`), the ten core endpoints, the run timeline and stop,
 * the OpenAI face, the console, `/openapi.json` and `/docs`, and JSON errors.
 */
export function createApp(ctx: WebContext, access: AccessSource): { app: Hono<WebEnv>; routes: RouteTable; openapi(): OpenApiDocument; gate: Gate } {
  const { kernel, options, runner } = ctx;
  const app = new Hono<WebEnv>();
  // Paths that never need the token: the health check, and the console's page and files (they hold no data).
  const gate = new Gate(options, { bindHost: () => access.bindHost(), closing: () => runner.closing }, (path) => path === '/health' || (options.console && isConsolePath(path)));
  const answer = (error: unknown, c: Context<WebEnv>): Response => {
    const e = asOryxError(error);
    const status = statusOf(e);
    if (status >= 500) {
      const cause = e.cause instanceof Error ? ` (${e.cause.stack ?? e.cause.message})` : '';
      kernel.log.warn(`${requestIdOf(c)} ${e.code}: ${e.message}${e.hint ? ` (fix: ${e.hint})` : ''}${cause}`);
    }
    return c.json(errorBody(e, { openai: c.req.path.startsWith('/v1/') }), status as 500);
  };
  const source = { gate, log: kernel.log, token: () => access.token(), answer };
  // The Host check and the shutdown gate come before anything else answers (a DNS-rebinding page
  // must not even learn that the server is up), CORS answers preflights before auth.
  if (options.cors === false) app.use('*', admission(source, 'all'));
  else {
    app.use('*', admission(source, 'entry'));
    app.use('*', cors({
      origin: options.cors === true ? '*' : options.cors,
      allowHeaders: ['authorization', 'content-type', 'accept', 'x-request-id', 'x-session-id', 'x-oryx-user', 'traceparent', 'tracestate', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'],
      exposeHeaders: ['x-request-id', 'x-session-id', 'location', 'mcp-session-id'],
      maxAge: 600,
    }));
    app.use('*', admission(source, 'access'));
  }

  const routes = new RouteTable(app, options.maxMessageBytes + ENVELOPE_BYTES);
  registerApiRoutes(routes, ctx);
  registerRunRoutes(routes, ctx);
  registerApprovalRoutes(routes, ctx);
  registerOpenAiRoutes(routes, ctx);
  if (options.console) registerConsoleRoutes(routes);
  let doc: OpenApiDocument | undefined;
  const docsCsp = docsContentSecurityPolicy();
  const openapi = () => (doc ??= buildOpenApi(routes.specs, { title: 'OryxOS', version: ctx.version, auth: options.auth !== 'none' }));
  routes.add({
    method: 'get', path: '/openapi.json', tag: 'server',
    summary: 'This OpenAPI 3.1 document, generated from the schemas that validate requests.',
    responses: { 200: { description: 'The document', contentType: 'application/json' } },
  }, (c) => c.json(openapi()));
  routes.add({
    method: 'get', path: '/docs', tag: 'server',
    summary: 'A self-contained HTML page listing every endpoint of /openapi.json.',
    responses: { 200: { description: 'The page', contentType: 'text/html' } },
  }, (c) => {
    c.header('content-security-policy', docsCsp);
    return c.html(renderDocs(openapi()));
  });

  app.notFound((c) => {
    const e = webError('ORYX_E_WEB_NOT_FOUND', `No endpoint ${c.req.method} ${c.req.path}`);
    return c.json(errorBody(e, { openai: c.req.path.startsWith('/v1/') }), 404);
  });
  app.onError(answer);
  return { app, routes, openapi, gate };
}
