import { createServer, type Server } from 'node:http';
import { OryxError } from '@oryxos/provider-spec';

/** The page the browser shows once it is back: the person may close the tab. */
const DONE_PAGE = '<!doctype html><meta charset="utf-8"><title>OryxOS</title><body style="font-family:sans-serif"><h1>Signed in</h1><p>OryxOS has the authorization. You can close this tab.</p></body>';

/**
 * The redirect target of a browser sign-in (RFC 8252 §7.3): an HTTP server on 127.0.0.1 that
 * takes one `GET /callback?code=…&state=…`, checks the state, and hands the code over.
 *
 * @example
 * const loopback = await Loopback.listen();          // any free port
 * const code = await loopback.code(state, 300_000);  // after the browser came back
 * await loopback.close();
 */
export class Loopback {
  private waiting?: { state?: string; resolve: (code: string) => void; reject: (error: Error) => void };
  private early?: { code?: string; state?: string; error?: string; description?: string };

  private constructor(private readonly server: Server, readonly port: number) {
    server.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', `http://127.0.0.1:${this.port}`);
      if (req.method !== 'GET' || url.pathname !== '/callback') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      const got = {
        code: url.searchParams.get('code') ?? undefined,
        state: url.searchParams.get('state') ?? undefined,
        error: url.searchParams.get('error') ?? undefined,
        description: url.searchParams.get('error_description') ?? undefined,
      };
      if (this.waiting && this.waiting.state !== undefined && got.state !== this.waiting.state) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('The state does not match this sign-in; start it again.');
        return;
      }
      res.writeHead(got.error ? 400 : 200, { 'content-type': 'text/html; charset=utf-8' })
        .end(got.error ? `<!doctype html><p>Sign-in refused: ${escapeHtml(got.error)}</p>` : DONE_PAGE);
      this.settle(got);
    });
  }

  /** Listens on 127.0.0.1 at `port` (0: any free port). A busy fixed port is an error naming it. */
  static async listen(port = 0): Promise<Loopback> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE'
        ? new OryxError('ORYX_E_MCP_AUTH_FAILED', `the sign-in redirect port ${port} on 127.0.0.1 is in use`, { hint: 'Close the program that uses it, or change oauth.callbackPort.' })
        : error));
      server.listen(port, '127.0.0.1', () => resolve());
    });
    return new Loopback(server, (server.address() as { port: number }).port);
  }

  /** The redirect URI to register and send. */
  get redirectUrl(): string {
    return `http://127.0.0.1:${this.port}/callback`;
  }

  /** The authorization code of the next redirect with this `state`; rejects on an error redirect or after `timeoutMs`. */
  code(state: string | undefined, timeoutMs: number, signal?: AbortSignal): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => fail(new OryxError('ORYX_E_MCP_AUTH_FAILED', `no sign-in came back within ${Math.round(timeoutMs / 1000)} s`, {
        hint: 'Open the URL OryxOS printed, sign in, and let the browser come back to 127.0.0.1; run oryx mcp login again if it expired.',
      })), timeoutMs);
      const onAbort = () => fail(new OryxError('ORYX_E_RUN_ABORTED', 'the sign-in was cancelled'));
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => { clearTimeout(timer); signal?.removeEventListener('abort', onAbort); this.waiting = undefined; };
      const fail = (error: Error) => { done(); reject(error); };
      this.waiting = { state, resolve: (code) => { done(); resolve(code); }, reject: fail };
      if (this.early) {
        const got = this.early;
        this.early = undefined;
        this.settle(got);
      }
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections?.();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private settle(got: { code?: string; state?: string; error?: string; description?: string }): void {
    const waiting = this.waiting;
    if (!waiting) { this.early = got; return; }
    if (got.error) {
      waiting.reject(new OryxError('ORYX_E_MCP_AUTH_FAILED', `the authorization server refused the sign-in: ${got.error}${got.description ? ` (${got.description})` : ''}`, {
        hint: 'Sign in again with oryx mcp login, and accept the access it asks for.',
      }));
    } else if (!got.code) {
      waiting.reject(new OryxError('ORYX_E_MCP_AUTH_FAILED', 'the browser came back without an authorization code', { hint: 'Run oryx mcp login again.' }));
    } else {
      waiting.resolve(got.code);
    }
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
