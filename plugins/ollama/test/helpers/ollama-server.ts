/**
 * A loopback HTTP server that speaks Ollama's /api/chat wire protocol (JSON and NDJSON),
 * answering each request with the next scripted reply, so tests exercise the real SDK.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Reply =
  | { json: unknown; status?: number; headers?: Record<string, string> }
  /** Plain text (a proxy's error page). */
  | { text: string; status: number }
  /** Newline-delimited JSON; `hold` keeps the response open after the lines, `cut` breaks the connection. */
  | { ndjson: unknown[]; hold?: boolean; cut?: boolean }
  /** One NDJSON line every `everyMs`, until the client goes away. */
  | { trickle: unknown; everyMs: number }
  | { hang: true }
  | { destroy: true };

export interface RecordedRequest { method: string; path: string; headers: IncomingMessage['headers']; body: any }

export interface OllamaServer {
  /** Base URL, e.g. http://127.0.0.1:PORT (what `host` takes). */
  url: string;
  requests: RecordedRequest[];
  /** The `/api/show` requests (model info), kept apart from the scripted ones. */
  shows: RecordedRequest[];
  closedEarly: number;
  closedEarlyOnce: Promise<void>;
  close(): Promise<void>;
}

/**
 * `show` answers `POST /api/show` (default: 404, as Ollama does for a model it does not have);
 * those requests do not take a scripted reply.
 */
export async function ollamaServer(script: (Reply | ((body: any, index: number) => Reply))[], options: { show?: (body: any) => Reply } = {}): Promise<OllamaServer> {
  const requests: RecordedRequest[] = [];
  const shows: RecordedRequest[] = [];
  let signalClosed!: () => void;
  const state = { closedEarly: 0, closedEarlyOnce: new Promise<void>((resolve) => { signalClosed = resolve; }) };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: any = text;
    try { body = JSON.parse(text); } catch { /* keep the text */ }
    if (req.url === '/api/show') {
      shows.push({ method: req.method ?? '', path: req.url, headers: req.headers, body });
      send(res, options.show?.(body) ?? { status: 404, json: { error: `model '${body?.model}' not found` } });
      return;
    }
    const index = requests.length;
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
    res.on('close', () => { if (!res.writableFinished) { state.closedEarly++; signalClosed(); } });
    const entry = script[index];
    const reply = typeof entry === 'function' ? entry(body, index) : entry;
    send(res, reply ?? { status: 500, json: { error: `test server: no reply scripted for request ${index + 1}` } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    shows,
    get closedEarly() { return state.closedEarly; },
    get closedEarlyOnce() { return state.closedEarlyOnce; },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(res: ServerResponse, reply: Reply): void {
  if ('hang' in reply) return;
  if ('destroy' in reply) { res.socket?.destroy(); return; }
  if ('json' in reply) {
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
    res.end(JSON.stringify(reply.json));
    return;
  }
  if ('text' in reply) {
    res.writeHead(reply.status, { 'content-type': 'text/plain' });
    res.end(reply.text);
    return;
  }
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  if ('trickle' in reply) {
    const timer = setInterval(() => res.write(`${JSON.stringify(reply.trickle)}\n`), reply.everyMs);
    res.on('close', () => clearInterval(timer));
    return;
  }
  for (const line of reply.ndjson) res.write(`${JSON.stringify(line)}\n`);
  // Once what was written has reached the socket, so the client sees the parts first.
  if (reply.cut) { res.write('', () => res.socket?.destroy()); return; }
  if (!reply.hold) res.end();
}

// ---------------------------------------------------------------------------------------
// Wire builders

export interface WireCall { name: string; args: unknown }

const base = { model: 'm', created_at: '2025-01-01T00:00:00Z' };

/** A whole /api/chat answer (stream: false). */
export function chatResponse(input: { content?: string; toolCalls?: WireCall[]; usage?: [number, number]; doneReason?: string }) {
  return {
    ...base,
    message: {
      role: 'assistant', content: input.content ?? '',
      ...(input.toolCalls?.length ? { tool_calls: input.toolCalls.map((c) => ({ function: { name: c.name, arguments: c.args } })) } : {}),
    },
    done: true, done_reason: input.doneReason ?? 'stop',
    total_duration: 1, load_duration: 1, prompt_eval_count: input.usage?.[0] ?? 0, prompt_eval_duration: 1,
    eval_count: input.usage?.[1] ?? 0, eval_duration: 1,
  };
}

/** One streamed part (not the last). */
export function part(content: string, toolCalls?: WireCall[]) {
  return {
    ...base, done: false,
    message: { role: 'assistant', content, ...(toolCalls ? { tool_calls: toolCalls.map((c) => ({ function: { name: c.name, arguments: c.args } })) } : {}) },
  };
}

/** The final streamed part with the counts. */
export function donePart(usage: [number, number], doneReason = 'stop') {
  return { ...chatResponse({ usage, doneReason }), message: { role: 'assistant', content: '' } };
}
