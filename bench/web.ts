// Requests per second of the web channel next to a bare Hono app serving the same routes, on
// loopback with keep-alive connections.
//
// Run (after `npm run build`; `npx tsc -b` alone leaves the bundles in dist/ as they were): node --import tsx bench/web.ts [seconds=4] [concurrency=32] [rounds=3]
// WEB_CPU=3000 adds the process's CPU time per request of each scenario (N requests from 16
// keep-alive connections in this process, 4 rounds, median): steadier than req/s on a loaded machine.
// WEB_PLUGIN=<module> loads the web plugin from another build (an older one, for before/after runs).
//
// Scenarios, each measured for `seconds` after a short warm-up:
//   bare  GET  /health                            Hono + @hono/node-server, one route
//   oryx  GET  /health                            the plugin: request id, security headers, Host check, shutdown gate, log line
//   bare  POST /invoke                            Hono route calling AgentService.process directly
//   oryx  POST /api/sessions/:id/messages         the plugin: the checks above, bearer auth, body limit and check, session lookup, timeout
//   oryx  POST /api/sessions/:id/messages (SSE)   the same, streamed as server-sent events
// The provider answers at once in-process (no network), so the numbers are the HTTP and
// kernel overhead of a run, not model latency. Each connection of the load generator has its
// own fresh session (runs on one session are serialized). The load generator runs in a worker
// thread so it does not share the event loop with the servers. Every scenario runs `rounds`
// times, in a rotated order each round, and the best round is reported: on a shared machine
// the best round is the one least disturbed by other work.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';

interface Job {
  url: string; method: string; headers: Record<string, string>; body?: string;
  /** One session id per connection slot, put in place of `{session}` in the URL. */
  sessions?: string[];
  seconds: number; concurrency: number; warmupSeconds: number;
}
interface Report { requests: number; errors: number; rps: number; p50: number; p99: number }

// The load generator, as plain JavaScript evaluated in a worker thread (workers do not inherit
// the tsx loader): keep-alive node:http requests from `concurrency` slots until time is up.
const LOAD_GENERATOR = `
const http = require('node:http');
const { parentPort, workerData: job } = require('node:worker_threads');
const agent = new http.Agent({ keepAlive: true, maxSockets: job.concurrency });
const one = (slot) => new Promise((resolve) => {
  const started = performance.now();
  const url = job.sessions ? job.url.replace('{session}', job.sessions[slot]) : job.url;
  const req = http.request(url, { method: job.method, agent, headers: job.headers }, (res) => {
    res.resume();
    res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started }));
  });
  req.on('error', () => resolve({ status: 0, ms: 0 }));
  req.end(job.body);
});
async function run(seconds) {
  const latencies = [];
  let errors = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: job.concurrency }, async (_, slot) => {
    while (performance.now() < until) {
      const r = await one(slot);
      if (r.status >= 200 && r.status < 300) latencies.push(r.ms); else errors++;
    }
  }));
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { requests: latencies.length, errors, rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99) };
}
(async () => {
  await run(job.warmupSeconds);
  parentPort.postMessage(await run(job.seconds));
  agent.destroy();
})();
`;

await main();

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 4);
  const concurrency = Number(process.argv[3] ?? 32);
  const rounds = Number(process.argv[4] ?? 3);
  const [{ Hono }, { getRequestListener }, { AgentService }, { testKernel }, { default: web }] = await Promise.all([
    import('hono'), import('@hono/node-server'), import('@oryxos/kernel'), import('@oryxos/kernel/testing'), import(process.env.WEB_PLUGIN ?? '@oryxos/plugin-web') as Promise<typeof import('@oryxos/plugin-web')>,
  ]);
  type Provider = import('@oryxos/kernel').Provider;
  const answer = (model: string) => ({
    message: { role: 'assistant' as const, content: 'ok, done' }, usage: { inputTokens: 50, outputTokens: 3 }, finishReason: 'stop' as const, model,
  });
  const provider: Provider = {
    name: 'bench', defaultModel: 'bench',
    async chat(request) { return answer(request.model); },
    async *stream(request) {
      yield { type: 'text', delta: 'ok, ' };
      yield { type: 'text', delta: 'done' };
      yield { type: 'done', response: answer(request.model) };
    },
  };
  const t = await testKernel({
    plugins: [{ name: 'bench', version: '1.0.0', kernel: '^1', setup(k) { k.registerProvider(provider); } }, web({ invokeTimeoutMs: 60_000 })],
    agents: { assistant: { settings: { max_history_turns: 10 } } },
  });
  const oryx = t.kernel.service('web');
  const { url: oryxUrl } = await oryx.listen({ port: 0 });

  // The bare app: the same /health, and /invoke calling the kernel directly with none of the plugin's checks.
  const service = new AgentService(t.kernel);
  const bare = new Hono();
  bare.get('/health', (c) => c.json({ status: 'ok' }));
  bare.post('/invoke/:id', async (c) => {
    const { message } = await c.req.json<{ message: string }>();
    const r = await service.process({ agent: 'assistant', session: c.req.param('id'), message });
    return c.json({ sessionId: r.sessionId, answer: r.answer, stopReason: r.stopReason, iterations: r.iterations, usage: r.usage });
  });
  const bareServer = http.createServer(getRequestListener(bare.fetch, { overrideGlobalObjects: false }) as http.RequestListener);
  await new Promise<void>((resolve) => bareServer.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`;

  const store = t.kernel.service('sessions');
  const sessionsFor = async () => Promise.all(Array.from({ length: concurrency }, async () => (await store.create({ agent: 'assistant' })).id));
  const body = JSON.stringify({ message: 'hello there' });
  const json = { 'content-type': 'application/json' };
  // The oryx routes need the token the server generated (into the test kernel's workspace).
  const oryxJson = { ...json, authorization: `Bearer ${await oryx.token()}` };
  type Scenario = [string, Pick<Job, 'url' | 'method' | 'headers' | 'body'> & { perSession?: boolean }];
  const scenarios: Scenario[] = [
    ['bare  GET  /health', { url: `${bareUrl}/health`, method: 'GET', headers: {} }],
    ['oryx  GET  /health', { url: `${oryxUrl}/health`, method: 'GET', headers: {} }],
    ['bare  POST /invoke/:id (AgentService.process)', { url: `${bareUrl}/invoke/{session}`, method: 'POST', headers: json, body, perSession: true }],
    ['oryx  POST /api/sessions/:id/messages', { url: `${oryxUrl}/api/sessions/{session}/messages`, method: 'POST', headers: oryxJson, body, perSession: true }],
    ['oryx  POST /api/sessions/:id/messages (SSE)', {
      url: `${oryxUrl}/api/sessions/{session}/messages`, method: 'POST', headers: { ...oryxJson, accept: 'text/event-stream' }, body, perSession: true,
    }],
  ];
  console.log(`node ${process.version}, ${seconds} s per scenario, ${concurrency} keep-alive connections, loopback, best of ${rounds} rounds\n`);
  const best = new Map<string, Report>();
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < scenarios.length; i++) {
      const [name, { perSession, ...job }] = scenarios[(i + round) % scenarios.length]!;
      const sessions = perSession ? await sessionsFor() : undefined;
      const report = await measure({ ...job, sessions, seconds, concurrency, warmupSeconds: Math.min(1, seconds / 5) });
      if (report.rps > (best.get(name)?.rps ?? -1)) best.set(name, report);
    }
  }
  console.log(`${'scenario'.padEnd(48)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)}`);
  for (const [name] of scenarios) {
    const r = best.get(name)!;
    console.log(`${name.padEnd(48)} ${r.rps.toFixed(0).padStart(8)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)} ${String(r.errors).padStart(7)}`);
  }
  const rps = (name: string) => best.get(name)!.rps;
  // One machine-readable line for bench/suite.ts (`npm run bench`).
  console.log(`RESULT ${JSON.stringify({
    bareHealth: rps(scenarios[0]![0]), oryxHealth: rps(scenarios[1]![0]), bareInvoke: rps(scenarios[2]![0]), oryxInvoke: rps(scenarios[3]![0]),
  })}`);
  if (process.env.WEB_CPU) await cpuPerRequest(scenarios, sessionsFor, Number(process.env.WEB_CPU));
  await new Promise<void>((resolve) => bareServer.close(() => resolve()));
  bareServer.closeAllConnections();
  await t.close();
}

/**
 * CPU time of this process per request (server and client together; the client's share is the
 * same for every scenario), `n` requests per scenario and round, 4 rounds, the median printed.
 */
async function cpuPerRequest(
  scenarios: [string, Pick<Job, 'url' | 'method' | 'headers' | 'body'> & { perSession?: boolean }][],
  sessionsFor: () => Promise<string[]>, n: number,
): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const one = (url: string, job: Pick<Job, 'method' | 'headers' | 'body'>) => new Promise<number>((resolve, reject) => {
    const req = http.request(url, { method: job.method, agent, headers: job.headers }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode!)); });
    req.on('error', reject);
    req.end(job.body);
  });
  const cpu = new Map<string, number[]>();
  for (let round = 0; round < 4; round++) {
    for (const [name, { perSession, ...job }] of scenarios) {
      const sessions = perSession ? await sessionsFor() : undefined;
      let left = n;
      const before = process.cpuUsage();
      await Promise.all(Array.from({ length: 16 }, async (_, slot) => {
        while (left-- > 0) {
          const status = await one(sessions ? job.url.replace('{session}', sessions[slot]!) : job.url, job);
          if (status >= 300) throw new Error(`${name}: status ${status}`);
        }
      }));
      const used = process.cpuUsage(before);
      cpu.set(name, [...(cpu.get(name) ?? []), (used.user + used.system) / n]);
    }
  }
  console.log(`\nCPU µs per request (this process: server and client), ${n} requests × 4 rounds, median`);
  for (const [name, xs] of cpu) {
    xs.sort((a, b) => a - b);
    console.log(`${name.padEnd(48)} ${((xs[1]! + xs[2]!) / 2).toFixed(0).padStart(8)}   (${xs.map((x) => x.toFixed(0)).join(', ')})`);
  }
  agent.destroy();
}

/** Runs one scenario's load generator in a worker thread. */
function measure(job: Job): Promise<Report> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(LOAD_GENERATOR, { eval: true, workerData: job });
    worker.once('message', (r: Report) => { resolve(r); void worker.terminate(); });
    worker.once('error', reject);
  });
}
