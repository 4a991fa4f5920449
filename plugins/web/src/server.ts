import type { AddressInfo } from 'node:net';
import type { RequestListener, Server } from 'node:http';
import type { Kernel } from '@oryxos/kernel';
import type { Hono } from 'hono';
import { createApp } from './app.ts';
import { webError } from './errors.ts';
import { assertSafeBind, urlFor } from './host.ts';
import type { OpenApiDocument } from './openapi.ts';
import type { ResolvedWebOptions } from './options.ts';
import type { WebEnv } from './request-log.ts';
import type { RouteSpec } from './routes.ts';
import { Runner } from './runner.ts';

/** A running listener. */
export interface Listening {
  url: string;
  /** Same as {@link WebServer.close}. */
  close(options?: { graceMs?: number }): Promise<ShutdownReport>;
}

/** What a shutdown did with the runs in flight. */
export interface ShutdownReport { finished: number; aborted: number }

/**
 * The `web` service: the Hono app (usable without a socket through `app.request()`), and
 * `listen` / `close` for a real server with a graceful shutdown.
 *
 * @example
 * const web = kernel.service('web');
 * const { url } = await web.listen({ port: 0 });
 * await fetch(`${url}/health`);
 * await web.close({ graceMs: 5_000 });
 */
export class WebServer {
  readonly app: Hono<WebEnv>;
  readonly runner: Runner;
  readonly options: ResolvedWebOptions;
  private readonly doc: () => OpenApiDocument;
  private readonly specs: RouteSpec[];
  private server?: Server;
  private listeningUrl?: string;

  constructor(kernel: Kernel, options: ResolvedWebOptions, version: string) {
    this.options = options;
    this.runner = new Runner(kernel, options.invokeTimeoutMs);
    const built = createApp({ kernel, options, runner: this.runner, version, startedAt: Date.now() });
    this.app = built.app;
    this.doc = built.openapi;
    this.specs = built.routes.specs;
  }

  /** The OpenAPI document `GET /openapi.json` serves. */
  openapi(): OpenApiDocument { return this.doc(); }

  /** Method and path of every route, as registered. */
  get endpoints(): { method: string; path: string }[] {
    return this.specs.map((s) => ({ method: s.method.toUpperCase(), path: s.path }));
  }

  /** The URL while listening. */
  get url(): string | undefined { return this.listeningUrl; }

  /** Runs in flight (queued ones included). */
  get inFlight(): number { return this.runner.inFlight; }

  /**
   * Binds `host:port` (defaults from the options; port 0 picks a free one). Refuses a
   * non-loopback host without a token (ORYX_E_WEB_NO_TOKEN).
   */
  async listen(at: { host?: string; port?: number } = {}): Promise<Listening> {
    const host = at.host ?? this.options.host;
    const port = at.port ?? this.options.port;
    assertSafeBind(host, this.options.token);
    if (this.server) throw webError('ORYX_E_WEB_LISTEN', `Already listening on ${this.listeningUrl}`, { hint: 'Call close() before listening again.' });
    if (this.runner.closing) throw webError('ORYX_E_WEB_LISTEN', 'This server has been closed', { hint: 'Start a new kernel to serve again.' });
    const { getRequestListener } = await import('@hono/node-server');
    const { createServer } = await import('node:http');
    // overrideGlobalObjects: false — a library must not replace the process's global Request/Response.
    const listener = getRequestListener(this.app.fetch, { overrideGlobalObjects: false }) as unknown as RequestListener;
    const server = createServer(listener);
    await new Promise<void>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => {
        reject(webError('ORYX_E_WEB_LISTEN', `Cannot listen on ${urlFor(host, port)}: ${error.code ?? error.message}`, {
          cause: error,
          hint: error.code === 'EADDRINUSE' ? `Port ${port} is in use: pick another with --port (0 picks a free one).` : undefined,
        }));
      };
      server.once('error', onError);
      server.listen(port, host, () => { server.off('error', onError); resolve(); });
    });
    this.server = server;
    this.listeningUrl = urlFor(host, (server.address() as AddressInfo).port);
    return { url: this.listeningUrl, close: (options) => this.close(options) };
  }

  /**
   * Graceful shutdown: stops accepting connections, answers new requests 503, lets runs in
   * flight finish for `graceMs` (default `shutdownGraceMs`), aborts the rest (their sessions
   * keep every committed message) and closes every connection. Idempotent.
   */
  async close(options: { graceMs?: number } = {}): Promise<ShutdownReport> {
    const server = this.server;
    this.runner.closing = true;
    const closed = server && new Promise<void>((resolve) => server.close(() => resolve()));
    server?.closeIdleConnections();
    const report = await this.runner.drain(options.graceMs ?? this.options.shutdownGraceMs);
    if (server) {
      // Responses of the runs that just ended are still being written: give them a moment.
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), 1_000);
      await closed;
      clearTimeout(timer);
      this.server = undefined;
    }
    return report;
  }
}
