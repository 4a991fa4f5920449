import type { IncomingMessage, ServerResponse } from 'node:http';

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

/** What a run needs of the client's connection: whether it is gone, and a call when it goes. */
export interface ClientSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * The client's connection as a {@link ClientSignal}: "aborted" once the connection closes before
 * the response is finished. On the Node server it listens to Node's response directly (the fetch
 * `Request`'s `signal` is an AbortController made per request), for one listener at a time (a
 * run adds one); else it is that signal.
 */
export function clientSignalOf(c: { env: unknown; req: { raw: Request } }): ClientSignal {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (!outgoing || typeof outgoing.on !== 'function') return c.req.raw.signal;
  return new ResponseSignal(outgoing);
}

/**
 * "Aborted" once Node's response closes unfinished. A class rather than an object literal with
 * a getter: V8 gives each such literal a map of its own, which per request costs garbage collection.
 */
class ResponseSignal implements ClientSignal {
  private watching?: { listener: () => void; onClose: () => void };
  constructor(private readonly outgoing: ServerResponse) {}

  get aborted(): boolean { return this.outgoing.destroyed && !this.outgoing.writableFinished; }

  addEventListener(_type: 'abort', listener: () => void): void {
    this.stop();
    const onClose = () => {
      this.stop();
      if (!this.outgoing.writableFinished) listener();
    };
    this.watching = { listener, onClose };
    this.outgoing.on('close', onClose);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.watching?.listener === listener) this.stop();
  }

  private stop(): void {
    if (this.watching) this.outgoing.off('close', this.watching.onClose);
    this.watching = undefined;
  }
}
