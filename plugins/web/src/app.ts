import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { registerApiRoutes } from './api-routes.ts';
import { bearerAuth } from './auth.ts';
import type { WebContext } from './context.ts';
import { renderDocs } from './docs-page.ts';
import { asOryxError, errorBody, statusOf, webError } from './errors.ts';
import { buildOpenApi, type OpenApiDocument } from './openapi.ts';
import { registerOpenAiRoutes } from './openai-routes.ts';
import { requestIdOf, requestLog, type WebEnv } from './request-log.ts';
import { RouteTable } from './routes.ts';

/** Room for the JSON around a message (`{"message": …}`) in the raw body limit of the /api routes. */
export const ENVELOPE_BYTES = 1024;

/** Paths that never need the token. */
const OPEN_PATHS = new Set(['/health']);

/**
 * Builds the Hono app: request ids and log lines, the shutdown gate, CORS, bearer auth,
 * the ten core endpoints, the OpenAI face, `/openapi.json` and `/docs`, and JSON errors.
 */
export function createApp(ctx: WebContext): { app: Hono<WebEnv>; routes: RouteTable; openapi(): OpenApiDocument } {
  const { kernel, options, runner } = ctx;
  const app = new Hono<WebEnv>();
  app.use('*', requestLog(kernel.log));
  app.use('*', async function oryxShutdownGate(c, next) {
    if (!runner.closing) return next();
    c.header('connection', 'close');
    throw webError('ORYX_E_WEB_SHUTTING_DOWN', 'The server is shutting down');
  });
  if (options.cors !== false) {
    app.use('*', cors({
      origin: options.cors === true ? '*' : options.cors,
      allowHeaders: ['authorization', 'content-type', 'accept', 'x-request-id', 'x-session-id', 'x-oryx-user'],
      exposeHeaders: ['x-request-id', 'x-session-id', 'location'],
      maxAge: 600,
    }));
  }
  if (options.token) app.use('*', bearerAuth(options.token, OPEN_PATHS));

  const routes = new RouteTable(app, options.maxMessageBytes + ENVELOPE_BYTES);
  registerApiRoutes(routes, ctx);
  registerOpenAiRoutes(routes, ctx);
  let doc: OpenApiDocument | undefined;
  const openapi = () => (doc ??= buildOpenApi(routes.specs, { title: 'OryxOS', version: ctx.version, auth: Boolean(options.token) }));
  routes.add({
    method: 'get', path: '/openapi.json', tag: 'server',
    summary: 'This OpenAPI 3.1 document, generated from the schemas that validate requests.',
    responses: { 200: { description: 'The document', contentType: 'application/json' } },
  }, (c) => c.json(openapi()));
  routes.add({
    method: 'get', path: '/docs', tag: 'server',
    summary: 'A self-contained HTML page listing every endpoint of /openapi.json.',
    responses: { 200: { description: 'The page', contentType: 'text/html' } },
  }, (c) => c.html(renderDocs(openapi())));

  app.notFound((c) => {
    const e = webError('ORYX_E_WEB_NOT_FOUND', `No endpoint ${c.req.method} ${c.req.path}`);
    return c.json(errorBody(e, { openai: c.req.path.startsWith('/v1/') }), 404);
  });
  app.onError((error, c) => {
    const e = asOryxError(error);
    const status = statusOf(e);
    if (status >= 500) {
      const cause = e.cause instanceof Error ? ` (${e.cause.stack ?? e.cause.message})` : '';
      kernel.log.warn(`web ${requestIdOf(c)} ${e.code}: ${e.message}${cause}`);
    }
    return c.json(errorBody(e, { openai: c.req.path.startsWith('/v1/') }), status as 500);
  });
  return { app, routes, openapi };
}
