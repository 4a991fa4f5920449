import type { Context } from 'hono';

/** A server-sent-events stream being written. */
export interface SseChannel {
  /** Writes one event; a string `data` is sent as is, anything else as JSON. No-op once closed. */
  send(event: string | undefined, data: unknown): void;
  /** Aborted when the client goes away (connection closed or stream cancelled). */
  readonly clientSignal: AbortSignal;
  readonly closed: boolean;
}

/** Idle streams get a comment line this often, so proxies do not cut a long tool call. */
const KEEPALIVE_MS = 15_000;

/**
 * Answers with a `text/event-stream` body that `produce` writes to. The stream closes when
 * `produce` settles (a throw goes to `onError`, which writes the stream's error event); the client leaving (request signal, or the body being cancelled by the
 * server adapter) aborts `clientSignal`, which callers tie to the run.
 */
export function sseResponse(
  c: Context,
  produce: (channel: SseChannel) => Promise<void>,
  options: { headers?: Record<string, string>; onError(error: unknown, channel: SseChannel): void },
): Response {
  const gone = new AbortController();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const channel = new Channel(gone.signal, (bytes) => controller.enqueue(bytes));
  const onRequestAbort = () => gone.abort();
  c.req.raw.signal.addEventListener('abort', onRequestAbort, { once: true });
  const stream = new ReadableStream<Uint8Array>({
    start(ctrl) {
      controller = ctrl;
      const keepalive = setInterval(() => channel.write(': keepalive\n\n'), KEEPALIVE_MS);
      keepalive.unref();
      void produce(channel).catch((error) => options.onError(error, channel)).finally(() => {
        clearInterval(keepalive);
        c.req.raw.signal.removeEventListener('abort', onRequestAbort);
        if (!channel.closed) { channel.closed = true; try { controller.close(); } catch { /* already cancelled */ } }
      });
    },
    cancel() {
      channel.closed = true;
      gone.abort();
    },
  });
  return c.body(stream, 200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    ...options.headers,
  });
}

const encoder = new TextEncoder();

/** The {@link SseChannel} of one stream (a class: an object literal with a getter gets a V8 map of its own per request). */
class Channel implements SseChannel {
  closed = false;
  constructor(readonly clientSignal: AbortSignal, private readonly enqueue: (bytes: Uint8Array) => void) {}

  send(event: string | undefined, data: unknown): void {
    const body = typeof data === 'string' ? data : JSON.stringify(data);
    this.write(`${event ? `event: ${event}\n` : ''}${body.split(/\r\n|\r|\n/).map((l) => `data: ${l}`).join('\n')}\n\n`);
  }

  write(text: string): void {
    if (this.closed) return;
    try { this.enqueue(encoder.encode(text)); } catch { this.closed = true; }
  }
}
