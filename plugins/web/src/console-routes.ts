import type { Context } from 'hono';
import { acceptsGzip, CONSOLE_CSP, loadConsole, type ConsoleBundle, type ConsoleFile } from './console-assets.ts';
import { webError } from './errors.ts';
import type { WebEnv } from './request-log.ts';
import type { RouteTable } from './routes.ts';
import { ErrorResponse } from './schemas.ts';

/** Paths of the console that need no token: the page and its files hold no data. */
export function isConsolePath(path: string): boolean {
  return path === '/' || path.startsWith('/assets/');
}

/**
 * `GET /` (the console page) and `GET /assets/:file` (its hashed script, style and icon),
 * served from memory with the console's CSP. The files are read once, on the first request.
 * The page is revalidated on every load (`no-cache` with an ETag), the hashed files are
 * cached for a year.
 */
export function registerConsoleRoutes(routes: RouteTable, load: () => Promise<ConsoleBundle> = loadConsole): void {
  let bundle: Promise<ConsoleBundle> | undefined;
  const files = () => (bundle ??= load().catch((error) => { bundle = undefined; throw error; }));
  const unavailable = { description: 'The console was not built (ORYX_E_WEB_NO_CONSOLE)', schema: ErrorResponse };

  routes.add({
    method: 'get', path: '/', tag: 'console', auth: false,
    summary: 'The web console: chat with agents, see each run as a timeline, read memory. Needs no token itself (it asks for one and sends it with each API call).',
    responses: { 200: { description: 'The page', contentType: 'text/html' }, 503: unavailable },
  }, async (c) => send(c, (await files()).index, 'no-cache'));

  routes.add({
    method: 'get', path: '/assets/:file', tag: 'console', auth: false,
    params: { file: 'A file of the console build (its name carries its content hash)' },
    summary: "The console's script, style sheet and icon; immutable, cached for a year.",
    responses: {
      200: { description: 'The file', contentType: 'application/octet-stream' },
      404: { description: 'No such file', schema: ErrorResponse }, 503: unavailable,
    },
  }, async (c) => {
    const name = c.req.param('file')!;
    const file = (await files()).assets.get(name);
    if (!file) throw webError('ORYX_E_WEB_NOT_FOUND', `No console file ${JSON.stringify(name.slice(0, 80))}`, { hint: 'Reload the console page: it names the files of the running build.' });
    return send(c, file, 'public, max-age=31536000, immutable');
  });
}

function send(c: Context<WebEnv>, file: ConsoleFile, cache: string): Response {
  c.header('content-security-policy', CONSOLE_CSP);
  c.header('cache-control', cache);
  c.header('etag', file.etag);
  c.header('vary', 'accept-encoding');
  if (c.req.header('if-none-match') === file.etag) return c.body(null, 304);
  c.header('content-type', file.type);
  if (file.gzip && acceptsGzip(c.req.header('accept-encoding'))) {
    c.header('content-encoding', 'gzip');
    return c.body(file.gzip as Uint8Array<ArrayBuffer>);
  }
  return c.body(file.body as Uint8Array<ArrayBuffer>);
}
