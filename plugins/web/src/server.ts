import type { AddressInfo } from 'node:net';
import type { RequestListener, Server } from 'node:http';
import path from 'node:path';
import type { PluginContext } from '@oryxos/kernel';
import type { Hono } from 'hono';
import { createApp } from './app.ts';
import { webError } from './errors.ts';
import { frontListener } from './front.ts';
import type { Gate } from './guards.ts';
import { assertSafeBind, urlFor } from './host.ts';
import type { OpenApiDocument } from './openapi.ts';
import type { ResolvedWebOptions } from './options.ts';
import type { WebEnv } from './request-log.ts';
import type { RouteSpec, RouteTable } from './routes.ts';
import { Runner } from './runner.ts';
import { TOKEN_FILE, loadTokenFile } from './token-file.ts';

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
  /** Where routes are added: by the plugin's `init` for the services other plugins provide (`/api/tasks`). */
  readonly routes: RouteTable;
  /** Where the generated token is kept: `<workspace>/web-token`. */
  readonly tokenFile: string;
  private readonly kernel: PluginContext;
  private server?: Server;
  private listeningUrl?: string;
  private boundHost?: string;
  private fileToken?: Promise<string>;
  /** The token once loaded (`value` undefined with `auth: 'none'`), for the checks made without awaiting. */
  private loadedToken?: { value: string | undefined };
  private readonly gate: Gate;
  private tokenReads = 0;

  constructor(kernel: PluginContext, options: ResolvedWebOptions, version: string) {
    this.kernel = kernel;
    this.options = options;
    this.tokenFile = path.join(kernel.config.workspaceDir, TOKEN_FILE);
    this.runner = new Runner(kernel, options.invokeTimeoutMs);
    const built = createApp({ kernel, options, runner: this.runner, version, startedAt: Date.now() }, {
      token: () => this.token(),
      bindHost: () => this.boundHost ?? options.host,
    });
    this.app = built.app;
    this.doc = built.openapi;
    this.specs = built.routes.specs;
    this.routes = built.routes;
    this.gate = built.gate;
    if (options.auth === 'none' || options.token !== undefined) this.loadedToken = { value: options.auth === 'none' ? undefined : options.token };
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
   * The bearer token every route but `/health` requires: the configured one (the `token`
   * option or ORYX_WEB_TOKEN), else the one kept in {@link tokenFile}, created on first use
   * (first request or `listen()`); undefined with `auth: 'none'`.
   */
  token(): Promise<string | undefined> {
    if (this.options.auth === 'none') return Promise.resolve(undefined);
    if (this.options.token !== undefined) return Promise.resolve(this.options.token);
    return (this.fileToken ??= this.readTokenFile(false));
  }

  /**
   * Replaces the token in {@link tokenFile} with a new random one (`oryx web --new-token`);
   * requests with the old one are refused from now on. ORYX_E_WEB_OPTIONS when the token is
   * configured or `auth` is `'none'`, since the file is not used then.
   */
  rotateToken(): Promise<string> {
    if (this.options.auth === 'none' || this.options.token !== undefined) {
      const what = this.options.auth === 'none' ? "web({ auth: 'none' }) uses no token" : `the token comes from ${this.options.tokenFrom === 'option' ? 'web({ token })' : 'ORYX_WEB_TOKEN'}`;
      return Promise.reject(webError('ORYX_E_WEB_OPTIONS', `There is no token file to rotate: ${what}`, {
        hint: 'Change the configured token itself, or remove it to use the generated one.',
      }));
    }
    this.loadedToken = undefined;
    const rotated = this.readTokenFile(true);
    this.fileToken = rotated;
    return rotated;
  }

  private async readTokenFile(rotate: boolean): Promise<string> {
    const reading = ++this.tokenReads;
    try {
      const { token, tightened } = await loadTokenFile(this.tokenFile, { rotate });
      if (tightened) this.kernel.log.warn(`${this.tokenFile} was readable by other users; its mode is now 0600. Rotate the token with \`oryx web --new-token\` if it may have been seen.`);
      // Only the newest reading counts: a rotation may have begun while this one read.
      if (reading === this.tokenReads) this.loadedToken = { value: token };
      return token;
    } catch (error) {
      if (reading === this.tokenReads) this.fileToken = undefined; // the next request tries again, once the file is fixed
      throw error;
    }
  }

  /**
   * Binds `host:port` (defaults from the options; port 0 picks a free one), after making sure
   * the token is there (the token file is created now if needed). With `auth: 'none'` it warns
   * every time, and refuses a non-loopback host (ORYX_E_WEB_NO_TOKEN).
   */
  async listen(at: { host?: string; port?: number } = {}): Promise<Listening> {
    const host = at.host ?? this.options.host;
    const port = at.port ?? this.options.port;
    assertSafeBind(host, this.options.auth);
    if (this.server) throw webError('ORYX_E_WEB_LISTEN', `Already listening on ${this.listeningUrl}`, { hint: 'Call close() before listening again.' });
    if (this.runner.closing) throw webError('ORYX_E_WEB_LISTEN', 'This server has been closed', { hint: 'Start a new kernel to serve again.' });
    if (this.options.auth === 'none') {
      this.kernel.log.warn("web({ auth: 'none' }): this server has no token; any program on this machine can run your agents through it. Web pages are still refused by the Host and Origin checks. Remove auth: 'none' to require a token.");
    }
    await this.token();
    const [{ getRequestListener }, { RESPONSE_ALREADY_SENT }] = await Promise.all([import('@hono/node-server'), import('@hono/node-server/utils/response')]);
    const { createServer } = await import('node:http');
    // overrideGlobalObjects: false — a library must not replace the process's global Request/Response.
    const hono = getRequestListener(this.app.fetch, { overrideGlobalObjects: false }) as unknown as (...args: Parameters<RequestListener>) => Promise<unknown>;
    const server = createServer(frontListener({
      gate: this.gate, log: this.kernel.log, knownToken: () => this.loadedToken, sent: this.options.cors === false ? RESPONSE_ALREADY_SENT : undefined, next: hono,
    }));
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
    this.boundHost = host;
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
