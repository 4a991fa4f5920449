import { type PluginContext } from '@oryxos/kernel';
import { enforceAction } from '@oryxos/plugin-kit';
import { errorMessage } from '@oryxos/provider-spec';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { GuardedTransport } from './guarded-transport.ts';
import { withCallHeaders } from './call-headers.ts';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * `fetch` for the HTTP transports that watches every response body:
 *
 * - it stops reading once one message passes `maxBytes` (a JSON body is one message; an
 *   event stream counts from each blank line), and has the guard refuse the requests that
 *   response was answering;
 * - when an event stream that cannot be resumed (it sent no event `id`) ends or is cut before
 *   it answered the requests it was for, the guard fails those requests at once, instead of
 *   leaving them to wait for their timeout (the SDK only reconnects streams it can resume).
 *
 * @example
 * const transport = new StreamableHTTPClientTransport(url, { fetch: watchedFetch(limits.maxMessageBytes, () => guard) });
 */
export function watchedFetch(maxBytes: number, guard: () => GuardedTransport | undefined, base: Fetch = fetch): Fetch {
  return async (url, init) => {
    init = withCallHeaders(init);
    const response = await base(url, init);
    if (!response.body) return response;
    const ids = requestIds(init?.body);
    const stream = (response.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream');
    const events = stream && ids.length ? new EventScanner() : undefined;
    const reader = response.body.getReader();
    let size = 0;
    let newline = false;
    let finished = false;
    const ended = (error?: unknown) => {
      if (finished || !events) return;
      finished = true;
      const unanswered = ids.filter((id) => !events.answered.has(String(id)));
      if (!unanswered.length) return;
      if (events.resumable) { guard()?.resumable(unanswered); return; }
      guard()?.cut(unanswered, error
        ? `the response stream was cut before the answer came (${errorMessage(error)})`
        : 'the server closed the response stream without answering');
    };
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          ended(error);
          controller.error(error);
          return;
        }
        if (chunk.done) {
          ended();
          controller.close();
          return;
        }
        const bytes = chunk.value;
        for (let i = 0; i < bytes.length; i++) {
          const byte = bytes[i]!;
          if (byte === 10) { if (newline) size = 0; newline = true; } else if (byte !== 13) newline = false;
          if (++size > maxBytes) {
            finished = true;
            const g = guard();
            const why = g?.tooLarge() ?? `a message of more than ${maxBytes} bytes`;
            g?.refuseAll(why, ids);
            controller.error(new Error(why));
            await reader.cancel().catch(() => {});
            return;
          }
        }
        events?.push(bytes);
        controller.enqueue(bytes);
      },
      cancel(reason) { return reader.cancel(reason); },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/**
 * Reads an event stream as it passes, for what {@link watchedFetch} needs: whether it carries
 * event ids (then the SDK can resume it) and which JSON-RPC requests it answered.
 */
class EventScanner {
  resumable = false;
  readonly answered = new Set<string>();
  private readonly decoder = new TextDecoder();
  private partial = '';
  private data: string[] = [];

  push(bytes: Uint8Array): void {
    const lines = (this.partial + this.decoder.decode(bytes, { stream: true })).split(/\r?\n/);
    this.partial = lines.pop()!;
    for (const line of lines) {
      if (line === '') { this.dispatch(); continue; }
      if (line.startsWith('id:') && line.slice(3).trim()) this.resumable = true;
      else if (line.startsWith('data:')) this.data.push(line.slice(line[5] === ' ' ? 6 : 5));
    }
  }

  private dispatch(): void {
    const text = this.data.join('\n');
    this.data = [];
    if (!text) return;
    try {
      const message = JSON.parse(text) as { id?: RequestId; result?: unknown; error?: unknown } | unknown[];
      for (const m of Array.isArray(message) ? message : [message]) {
        const r = m as { id?: RequestId; result?: unknown; error?: unknown; method?: string };
        if (r && r.id !== undefined && r.method === undefined && ('result' in r || 'error' in r)) this.answered.add(String(r.id));
      }
    } catch {
      // not JSON: the SDK reports it
    }
  }
}

/**
 * `fetch` for what OryxOS asks on its own behalf around a remote server (OAuth discovery,
 * registration, tokens, revocation): each request is an `http` action the sandbox allows or
 * denies, so a server cannot send OryxOS to a host the policy does not allow.
 */
export function sandboxedFetch(ctx: PluginContext, origin: string): Fetch {
  return async (url, init) => {
    await enforceAction(ctx, { kind: 'http', url: String(url), method: (init?.method ?? 'GET').toUpperCase() }, { origin });
    return fetch(url, init);
  };
}

/** The ids of the JSON-RPC requests in a request body. */
function requestIds(body: unknown): RequestId[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((m) => (m && typeof m === 'object' && 'id' in m && 'method' in m ? [(m as { id: RequestId }).id] : []));
  } catch {
    return [];
  }
}
