import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kernel, resolveConfig, type Plugin, type RunResult } from '@oryxos/kernel';
import type { LongTermMemoryStore, MemoryEntry } from '@oryxos/contracts';
import { scripted, writeAgents, type Script, type ScriptedPlugin, type TestAgent } from '@oryxos/kernel/testing';
import { readSse, type SseEvent } from '../console/sse.ts';
import web, { type WebOptions } from '../src/index.ts';
import type { WebServer } from '../src/server.ts';

export interface Harness {
  kernel: Kernel;
  web: WebServer;
  llm: ScriptedPlugin;
  url: string;
  /** The token the server requires (the configured one, or the one it generated); undefined with auth: 'none'. */
  token?: string;
  /** `{ authorization: 'Bearer <token>' }`, or `{}` with auth: 'none': spread it into a request's headers. */
  auth: Record<string, string>;
  logs: string[];
  /** Every run result seen by afterRun, in order. */
  runs: RunResult[];
  dir: string;
  close(): Promise<void>;
}

/** Collects afterRun results, so tests can see how a run ended even when the client left. */
function runRecorder(runs: RunResult[]): Plugin {
  return {
    name: 'run-recorder', version: '1.0.0', kernel: '^1',
    setup(kernel) { kernel.hooks.afterRun.tapPromise(async (r) => { runs.push(r); }); },
  };
}

/**
 * A started kernel with a scripted provider and the web plugin, listening on a free loopback
 * port. `listen: false` skips the socket (for app.request() tests). The default config is
 * served as is, so requests need `h.auth` (the token the server generated, read from its
 * token file the way clients do).
 */
export async function startWeb(options: {
  script?: Script;
  web?: WebOptions;
  agents?: Record<string, TestAgent | string>;
  plugins?: Plugin[];
  listen?: boolean;
  defaultAgent?: string;
} = {}): Promise<Harness> {
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-web-'));
  const llm = scripted(options.script ?? []);
  const runs: RunResult[] = [];
  const logs: string[] = [];
  let kernel: Kernel | undefined;
  try {
    const config = resolveConfig({ plugins: [llm, ...(options.plugins ?? []), runRecorder(runs), web(options.web)], defaultAgent: options.defaultAgent }, dir);
    await writeAgents(config.workspaceDir, options.agents ?? { assistant: { tools: ['*'] } });
    kernel = await new Kernel({
      config,
      logger: { debug() {}, info: (m) => logs.push(m), warn: (m) => logs.push(`warn: ${m}`) },
    }).start();
    const server = kernel.service('web');
    const url = options.listen === false ? '' : (await server.listen({ port: 0 })).url;
    let token: string | undefined;
    if (server.options.auth !== 'none') {
      await server.token(); // listen() makes sure the token file exists; without a socket, do it here
      token = server.options.token ?? await readWebToken(config.workspaceDir);
    }
    const k = kernel;
    return {
      kernel: k, web: server, llm, url, logs, runs, dir, token,
      auth: token === undefined ? {} : { authorization: `Bearer ${token}` },
      async close() {
        try { await k.close(); } finally { await rm(dir, { recursive: true, force: true }); }
      },
    };
  } catch (error) {
    await kernel?.close().catch(() => {});
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The token kept in `<workspace>/web-token`, as a client reads it (the server creates it on first use). */
export async function readWebToken(workspaceDir: string): Promise<string> {
  return (await readFile(path.join(workspaceDir, 'web-token'), 'utf8')).trim();
}

// The console's own reader: the API's tests check it as much as the console's do.
export { readSse, type SseEvent };

/** All events of a finished stream. */
export async function allSse(res: Response): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const e of readSse(res.body!)) out.push(e);
  return out;
}

export const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

/** A session created over HTTP. */
export async function newSession(h: Harness, agent = 'assistant', headers: Record<string, string> = {}): Promise<string> {
  const res = await post(`${h.url}/api/sessions`, { agent }, { ...h.auth, ...headers });
  if (res.status !== 201) throw new Error(`session create failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** What {@link rawRequest} got back. */
export interface RawResponse { status: number; headers: IncomingHttpHeaders; body: string }

/**
 * One HTTP request through node:http, which (unlike fetch) sends any `Host` header: for the
 * DNS-rebinding checks. `Content-Length` is set from the body. `path`, when given, is sent
 * exactly as written in place of the URL's (a URL resolves dot segments first).
 */
export function rawRequest(url: string, init: { method?: string; headers?: Record<string, string>; body?: string; path?: string } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers, ...(init.path ? { path: init.path } : {}) }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** A deferred: a promise with its resolve function, for steps that wait on the test. */
export function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => { resolve = r; });
  return { promise, resolve };
}

/** A long-term memory service of the shape the memory plugin provides, kept in memory. */
export function memoryService(zones: Record<string, { core: MemoryEntry[]; archive: MemoryEntry[] }>): Plugin {
  const store: LongTermMemoryStore = {
    async read(agent) { return { path: `/memory/${agent}/MEMORY.md`, ...(zones[agent] ?? { core: [], archive: [] }) }; },
    async save(_agent, text) { return { date: '2026-01-01', text }; },
    async recall() { return []; },
  };
  return { name: 'memory-stub', version: '1.0.0', kernel: '^1', provides: ['memory'], setup(k) { k.provide('memory', store); } };
}
