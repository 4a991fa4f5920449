import { STAGE, pluginPackage, type Plugin } from '@oryxos/kernel';
import { resolveOptions, type WebOptions } from './options.ts';
import type { WebServer } from './server.ts';

export { ERROR_CODES, type ErrorBody, type WebErrorCode } from './errors.ts';
export { DEFAULTS, resolveOptions, type WebOptions, type ResolvedWebOptions } from './options.ts';
export { assertSafeBind, isLoopback, urlFor } from './host.ts';
export { OPERATOR, safeEqual, type WebIdentity } from './auth.ts';
export type { WebServer, Listening, ShutdownReport } from './server.ts';
export type { OpenApiDocument } from './openapi.ts';

declare module '@oryxos/contracts' {
  interface Services {
    /** The REST channel (plugin `web`): the Hono app, `listen` and a graceful `close`. */
    web: WebServer;
  }
}

/**
 * The web channel: a Hono REST server with SSE streaming, bearer auth, limits, an OpenAPI
 * document and an OpenAI-compatible endpoint, provided as the `web` service and started by
 * `oryx web`. A token is required by default: ORYX_WEB_TOKEN, `token`, or one generated into
 * `<workspace>/web-token` when the server first needs it (so `oryx run` never creates it).
 * Requests to a host name the server does not answer to, and changes sent by web pages of
 * other origins, are refused. Options are validated at once (ORYX_E_WEB_OPTIONS names the
 * field); a non-loopback `host` with `auth: 'none'` is refused when the server starts
 * (ORYX_E_WEB_NO_TOKEN).
 *
 * @example
 * // oryx.config.ts
 * import web from '@oryxos/plugin-web';
 * export default defineConfig({ plugins: [openai(), sqlite(), web({ port: 8787 })] });
 *
 * // in code (tests, embedding)
 * const { url } = await kernel.service('web').listen({ port: 0 });
 */
export default function web(options: WebOptions = {}): Plugin {
  const resolved = resolveOptions(options);
  const pkg = pluginPackage(import.meta.url);
  return {
    ...pkg,
    name: 'web',
    provides: ['web'],
    options: resolved,
    async setup(ctx) {
      // Only a host that serves (`oryx web`, an embedding program) gets the server: for `oryx
      // run`, `chat` and every read, Hono, the routes and their request types are not even loaded.
      if (ctx.readOnly || !ctx.serving) return;
      const { WebServer } = await import('./server.ts');
      const server = new WebServer(ctx, resolved, pkg.version);
      ctx.provide('web', server);
      // A door: the host starts it with the others (`oryx web` listens first, with its flags).
      ctx.registerDoor({ name: 'web', start: async () => { if (!server.url) await server.listen(); }, stop: (o) => server.close(o) });
      // The usage of each model call, for the live status of a streamed run (its events carry none).
      ctx.hooks.afterLLM.tapPromise({ stage: STAGE.OBSERVE }, async (response, info) => {
        server.runner.noteUsage(info.run.sessionId, response.usage);
        return response;
      });
      // In init, once every plugin is set up: routes for the services other plugins provide.
      ctx.hooks.init.tapPromise(async () => {
        const { registerTaskRoutes, schedulerOf } = await import('./task-routes.ts');
        const scheduler = schedulerOf(ctx);
        if (scheduler) registerTaskRoutes(server.routes, scheduler);
        // MCP over Streamable HTTP (the mcp-server plugin), behind the same checks as the API.
        if (ctx.hasService('mcpHttp')) {
          const [{ principalOf }, mcp] = [await import('./principal.ts'), ctx.service('mcpHttp')];
          server.app.all(mcp.path, (c) => mcp.handle(c.req.raw, { user: principalOf(c) }));
        }
      });
      // A high stage sorts last and the kernel runs close taps in reverse, so the server stops
      // (and its runs end) before the plugins it uses, such as the database, close.
      ctx.hooks.close.tapPromise({ stage: STAGE.OBSERVE }, async () => { await server.close({ graceMs: 0 }); });
    },
  };
}
