import type { IncomingMessage } from 'node:http';

/** Node's request behind a Hono context, when the app runs on the Node server (not `app.request()`). */
export function incomingOf(c: { env: unknown }): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming && typeof incoming.on === 'function' ? incoming : undefined;
}

/**
 * A request header, read from Node's parsed headers when the app runs on the Node server: asking
 * the fetch `Request` for one builds its whole `Headers` object first (every header validated
 * and copied). Node keeps the first of a repeated `host`, `authorization` or `content-type` and
 * joins the others with `, `, as `Headers` does.
 */
export function headerOf(c: { env: unknown; req: { header(name: string): string | undefined } }, name: string): string | undefined {
  const incoming = incomingOf(c);
  if (!incoming) return c.req.header(name);
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
