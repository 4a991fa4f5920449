/**
 * A loopback HTTP server that speaks the OpenAI chat-completions wire protocol (JSON and SSE),
 * answering each request with the next scripted reply, so tests exercise the real SDK.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Reply =
  /** A JSON answer (default status 200). */
  | { json: unknown; status?: number; headers?: Record<string, string> }
  /** Server-sent events: each item is sent as one `data:` line; `[DONE]` follows unless `hold`; `cut` then breaks the connection. */
  | { sse: unknown[]; hold?: boolean; done?: boolean; cut?: boolean }
  /** Server-sent events sent steadily, one every `everyMs`, until the client goes away. */
  | { trickle: unknown; everyMs: number }
  /** Server-sent events written by `write` as it pleases (it may wait between items), then `[DONE]`. */
  | { paced: (send: (item: unknown) => void) => Promise<void> }
  /** Never answer (the client must time out or abort). */
  | { hang: true }
  /** Close the socket without answering (a connection reset). */
  | { destroy: true };

export interface RecordedRequest { method: string; path: string; headers: IncomingMessage['headers']; body: any }

export interface OpenAIServer {
  /** Base URL including `/v1`. */
  url: string;
  requests: RecordedRequest[];
  /** Responses the client closed before the server had finished them. */
  closedEarly: number;
  /** Resolves when the client closes a response early. */
  closedEarlyOnce: Promise<void>;
  close(): Promise<void>;
}

export async function openaiServer(script: (Reply | ((body: any, index: number) => Reply))[]): Promise<OpenAIServer> {
  const requests: RecordedRequest[] = [];
  let signalClosed!: () => void;
  const state = {
    closedEarly: 0,
    closedEarlyOnce: new Promise<void>((resolve) => { signalClosed = resolve; }),
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: any = text;
    try { body = JSON.parse(text); } catch { /* keep the text */ }
    const index = requests.length;
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
    res.on('close', () => {
      if (!res.writableFinished) { state.closedEarly++; signalClosed(); }
    });
    const entry = script[index];
    const reply = typeof entry === 'function' ? entry(body, index) : entry;
    send(res, reply ?? { status: 500, json: { error: { message: `test server: no reply scripted for request ${index + 1}`, type: 'test' } } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
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
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    res.end(JSON.stringify(reply.json));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if ('paced' in reply) {
    void reply.paced((item) => res.write(`data: ${typeof item === 'string' ? item : JSON.stringify(item)}\n\n`))
      .then(() => res.end('data: [DONE]\n\n'), () => res.socket?.destroy());
    return;
  }
  if ('trickle' in reply) {
    const timer = setInterval(() => res.write(`data: ${JSON.stringify(reply.trickle)}\n\n`), reply.everyMs);
    res.on('close', () => clearInterval(timer));
    return;
  }
  for (const item of reply.sse) res.write(`data: ${typeof item === 'string' ? item : JSON.stringify(item)}\n\n`);
  // Once what was written has reached the socket, so the client sees the tokens first.
  if (reply.cut) { res.write(': cut\n\n', () => res.socket?.destroy()); return; }
  if (reply.hold) return;
  if (reply.done !== false) res.write('data: [DONE]\n\n');
  res.end();
}

// ---------------------------------------------------------------------------------------
// Wire builders

export interface WireCall { id?: string; name: string; args: string | Record<string, unknown> }

/** A chat.completion object. */
export function completion(input: { content?: string | null; toolCalls?: WireCall[]; usage?: [number, number]; finish?: string; model?: string }) {
  const calls = input.toolCalls?.map((c) => ({
    ...(c.id !== undefined ? { id: c.id } : {}), type: 'function',
    function: { name: c.name, arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args) },
  }));
  return {
    id: 'chatcmpl-test', object: 'chat.completion', created: 1, model: input.model ?? 'm',
    choices: [{
      index: 0,
      message: { role: 'assistant', content: input.content ?? null, ...(calls?.length ? { tool_calls: calls } : {}) },
      finish_reason: input.finish ?? (calls?.length ? 'tool_calls' : 'stop'),
    }],
    ...(input.usage ? { usage: { prompt_tokens: input.usage[0], completion_tokens: input.usage[1], total_tokens: input.usage[0] + input.usage[1] } } : {}),
  };
}

/** One chat.completion.chunk with the given delta. */
export function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] };
}

/** The final usage-only chunk sent with `stream_options.include_usage`. */
export function usageChunk(input: number, output: number) {
  return { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } };
}

/** A streamed text answer split into pieces. */
export function textStream(pieces: string[], usage: [number, number] = [7, 3]) {
  return [chunk({ role: 'assistant', content: '' }), ...pieces.map((p) => chunk({ content: p })), chunk({}, 'stop'), usageChunk(...usage)];
}
