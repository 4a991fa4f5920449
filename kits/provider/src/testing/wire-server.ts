/**
 * A loopback HTTP server that answers each request with the next scripted reply, in the
 * framing of the provider's wire protocol (server-sent events, or newline-delimited JSON), so
 * provider tests drive the real SDK over a real socket.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How a streamed answer is framed on the wire. */
export type Framing = 'sse' | 'sse-events' | 'ndjson';

/** One scripted reply. */
export type Reply =
  /** A JSON answer (default status 200). */
  | { json: unknown; status?: number; headers?: Record<string, string> }
  /** Plain text (a proxy's error page). */
  | { text: string; status: number; headers?: Record<string, string> }
  /**
   * A streamed answer: each item framed as one event (SSE `data:` line or NDJSON line). SSE
   * ends with `[DONE]` unless `done` is false; `hold` keeps the response open; `cut` breaks
   * the connection once the items are out.
   */
  | { events: unknown[]; hold?: boolean; done?: boolean; cut?: boolean }
  /** One event every `everyMs`, until the client goes away. */
  | { trickle: unknown; everyMs: number }
  /** Events sent by `send` as it pleases (it may wait between items), then the end. */
  | { paced: (send: (item: unknown) => void) => Promise<void> }
  /** Never answer (the client must time out or abort). */
  | { hang: true }
  /** Close the socket without answering (a connection reset). */
  | { destroy: true };

/** A reply, or a function of the request body and its index that makes one. */
export type ScriptEntry = Reply | ((body: any, index: number) => Reply);

/** A request the server received, its body parsed when it was JSON. */
export interface RecordedRequest { method: string; path: string; headers: IncomingMessage['headers']; body: any }

/** How the server frames streamed events and where its API lives. */
export interface WireServerOptions {
  /**
   * `sse` (OpenAI and most hosted APIs: `data:` lines, then `[DONE]`), `sse-events` (Anthropic:
   * each item as `event: <its type>` and `data:`, no `[DONE]`), or `ndjson` (Ollama).
   */
  framing: Framing;
  /** Appended to the origin in {@link WireServer.url}, e.g. `/v1`. */
  basePath?: string;
  /**
   * Requests to these paths (e.g. Ollama's `/api/show`) get the reply the function makes and
   * are recorded in {@link WireServer.side}; they take no scripted reply.
   */
  side?: Record<string, (body: any) => Reply>;
}

export interface WireServer {
  /** The origin plus `basePath`: what the provider's URL option takes. */
  url: string;
  requests: RecordedRequest[];
  /** The requests to each of the `side` paths. */
  side: Record<string, RecordedRequest[]>;
  /** Responses the client closed before the server had finished them. */
  readonly closedEarly: number;
  /** Resolves when the client first closes a response early. */
  readonly closedEarlyOnce: Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the server on 127.0.0.1 and an ephemeral port. A request past the end of the script
 * gets a 500 saying so, so a test notices an unexpected extra call. A function instead of a
 * script answers every request.
 *
 * @example
 * const server = await wireServer([{ json: completion({ content: 'hi' }) }], { framing: 'sse', basePath: '/v1' });
 * openai({ baseURL: server.url, apiKey: 'sk-test' });
 */
export async function wireServer(script: ScriptEntry[] | ((body: any, index: number) => Reply), options: WireServerOptions): Promise<WireServer> {
  const requests: RecordedRequest[] = [];
  const side: Record<string, RecordedRequest[]> = Object.fromEntries(Object.keys(options.side ?? {}).map((p) => [p, []]));
  let signalClosed!: () => void;
  const state = { closedEarly: 0, closedEarlyOnce: new Promise<void>((resolve) => { signalClosed = resolve; }) };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: any = text;
    try { body = JSON.parse(text); } catch { /* keep the text */ }
    const route = options.side?.[req.url ?? ''];
    if (route) {
      side[req.url!]!.push({ method: req.method ?? '', path: req.url!, headers: req.headers, body });
      send(res, route(body), options.framing);
      return;
    }
    const index = requests.length;
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
    res.on('close', () => { if (!res.writableFinished) { state.closedEarly++; signalClosed(); } });
    // A function is a server that answers every request (a long run, a load test).
    const entry = typeof script === 'function' ? script : script[index];
    const reply = typeof entry === 'function' ? entry(body, index) : entry;
    send(res, reply ?? { status: 500, json: { error: { message: `test server: no reply scripted for request ${index + 1}` } } }, options.framing);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${options.basePath ?? ''}`,
    requests,
    side,
    get closedEarly() { return state.closedEarly; },
    get closedEarlyOnce() { return state.closedEarlyOnce; },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(res: ServerResponse, reply: Reply, framing: WireServerOptions['framing']): void {
  if ('hang' in reply) return;
  if ('destroy' in reply) { res.socket?.destroy(); return; }
  if ('json' in reply) {
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
    res.end(JSON.stringify(reply.json));
    return;
  }
  if ('text' in reply) {
    res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
    res.end(reply.text);
    return;
  }
  const sse = framing !== 'ndjson';
  const frame = (item: unknown) => {
    const data = typeof item === 'string' ? item : JSON.stringify(item);
    if (framing === 'sse-events' && typeof item !== 'string') return `event: ${(item as { type?: string }).type ?? 'message'}\ndata: ${data}\n\n`;
    return sse ? `data: ${data}\n\n` : `${data}\n`;
  };
  const end = () => res.end(framing === 'sse' ? 'data: [DONE]\n\n' : '');
  res.writeHead(200, sse ? { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } : { 'content-type': 'application/x-ndjson' });
  if ('paced' in reply) {
    void reply.paced((item) => res.write(frame(item))).then(end, () => res.socket?.destroy());
    return;
  }
  if ('trickle' in reply) {
    const timer = setInterval(() => res.write(frame(reply.trickle)), reply.everyMs);
    res.on('close', () => clearInterval(timer));
    return;
  }
  for (const item of reply.events) res.write(frame(item));
  // Once what was written has reached the socket, so the client sees the events first.
  if (reply.cut) { res.write(sse ? ': cut\n\n' : '', () => res.socket?.destroy()); return; }
  if (reply.hold) return;
  if (reply.done === false || framing !== 'sse') res.end();
  else end();
}
