// Messages per second through the built `oryx web` after 1,000 and after 20,000 stored
// messages on one agent: the `oryx init` config (openai provider, sqlite, audit, memory,
// sandbox, tools, mcp, web) against a loopback server speaking the OpenAI wire protocol, which
// answers at once.
//
// Run (after `npm run build`):
//   node --import tsx bench/memory-load.ts [sessions=200] [clients=16] [window=600] [rounds=3] [stored=20000]
// BENCH_NO_CHECKPOINT=1 runs the same with memory({ checkpoint: false }), for comparison.
//
// Two projects, two `oryx web` processes: one filled to 1,000 stored messages, one to
// `stored` (each request stores two: the ask and the answer), through the server itself, over
// `sessions` sessions, each request acting for one of 20 users (x-oryx-user). Then, in rounds,
// `clients` keep-alive connections send `window` requests to each server in turn (the order
// alternates); the best round of each is reported, since on a shared machine the best round is
// the one least disturbed by other work. With the init agent's max_history_turns of 20, the
// first server writes no checkpoint yet while the second writes one per request into its
// session's memory. Goal: the second within 0.8x of the first.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { runOryx, tempProject } from '@oryxos/kernel/testing';

const [sessionsArg, clientsArg, windowArg, roundsArg, storedArg] = process.argv.slice(2).map(Number);
const SESSIONS = sessionsArg || 200;
const CLIENTS = clientsArg || 16;
const WINDOW = windowArg || 600;
const ROUNDS = roundsArg || 3;
const STORED = storedArg || 20_000;
const TOKEN = 'bench-memory-load-token-0123456789';

interface Server { name: string; dir: string; child: ChildProcess; url: string; sessions: string[]; sent: number }
interface Round { rate: number; p50: number; p99: number; errors: number }

const model = http.createServer(async (req, res) => {
  let text = '';
  for await (const chunk of req) text += chunk;
  const ask = (JSON.parse(text) as { messages: { content: string }[] }).messages.at(-1)!.content;
  const content = `Here is what I found about ${ask.slice(0, 60)}: the answer depends on the deployment, `
    + 'but in short the staging database is migrated on Fridays after the release review.';
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({
    id: 'chatcmpl-bench', object: 'chat.completion', created: 1, model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 100, completion_tokens: 30, total_tokens: 130 },
  }));
});
await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
const env = { OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`, ORYX_WEB_TOKEN: TOKEN };
const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS * 2 });
const servers: Server[] = [];

try {
  const small = await start('after 1,000 stored messages');
  const large = await start(`after ${STORED.toLocaleString('en-US')} stored messages`);
  console.log(`node ${process.version}; ${SESSIONS} sessions, ${CLIENTS} clients, ${WINDOW} requests per round, best of ${ROUNDS}`);
  const t = performance.now();
  await load(small, 500);
  await load(large, STORED / 2);
  console.log(`filled in ${((performance.now() - t) / 1000).toFixed(0)} s\n`);
  const best = new Map<Server, Round[]>([[small, []], [large, []]]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of round % 2 ? [large, small] : [small, large]) best.get(s)!.push(await load(s, WINDOW));
  }
  const top = (s: Server) => best.get(s)!.reduce((a, b) => (b.rate > a.rate ? b : a));
  for (const s of [small, large]) {
    const r = top(s);
    const all = best.get(s)!.map((x) => x.rate.toFixed(0)).join(', ');
    console.log(`${s.name.padEnd(34)} ${r.rate.toFixed(0).padStart(5)} messages/s   p50 ${r.p50.toFixed(1)} ms   p99 ${r.p99.toFixed(1)} ms   (rounds: ${all}; ${r.errors} errors)`);
  }
  console.log(`ratio: ${(top(large).rate / top(small).rate).toFixed(2)} (goal >= 0.80)\n`);
  for (const s of [small, large]) await report(s);
} finally {
  agent.destroy();
  for (const s of servers) {
    s.child.kill('SIGTERM');
    await new Promise((r) => (s.child.exitCode === null ? s.child.on('close', r) : r(null)));
    await rm(s.dir, { recursive: true, force: true });
  }
  model.close();
}

/** A fresh `oryx init` project served by `oryx web`, with its sessions. */
async function start(name: string): Promise<Server> {
  const dir = await tempProject('bench-memory-load-');
  const init = await runOryx(['init'], { cwd: dir, env });
  if (init.code !== 0) throw new Error(init.stderr);
  if (process.env.BENCH_NO_CHECKPOINT) {
    const config = path.join(dir, 'oryx.config.ts');
    await writeFile(config, (await readFile(config, 'utf8')).replace('memory(),', 'memory({ checkpoint: false }),'));
  }
  const child = spawn(process.execPath, [path.resolve('bin/run.js'), 'web', '--port', '0'], { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const server: Server = { name, dir, child, url: '', sessions: [], sent: 0 };
  servers.push(server);
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  for (let i = 0; i < 1500 && !server.url; i++) {
    server.url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1] ?? '';
    if (!server.url) await new Promise((r) => setTimeout(r, 20));
  }
  if (!server.url) throw new Error(`oryx web did not start:\n${out}`);
  for (let i = 0; i < SESSIONS; i++) server.sessions.push(JSON.parse((await request(server, 'POST', '/api/sessions', { agent: 'assistant' })).text).id);
  return server;
}

function request(s: Server, method: string, route: string, body: unknown, user?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request(`${s.url}${route}`, {
      method, agent,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...(user ? { 'x-oryx-user': user } : {}) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d) => { text += d; }).on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** Sends `count` messages from `CLIENTS` connections, round-robin over the sessions. */
async function load(s: Server, count: number): Promise<Round> {
  const latencies: number[] = [];
  let errors = 0;
  let left = count;
  const started = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (left > 0) {
      left--;
      const i = s.sent++;
      const t0 = performance.now();
      const r = await request(s, 'POST', `/api/sessions/${s.sessions[i % SESSIONS]}/messages`, {
        message: `question ${i}: how do we deploy service ${i % 37} to staging, and who approves it?`,
      }, `user${i % 20}`);
      if (r.status === 200) latencies.push(performance.now() - t0);
      else if (++errors < 4) console.error(r.status, r.text.slice(0, 200));
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { rate: latencies.length / seconds, p50: latencies[Math.floor(latencies.length / 2)] ?? 0, p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0, errors };
}

/** What the memory looks like on disk after the load. */
async function report(s: Server): Promise<void> {
  const ws = path.join(s.dir, '.oryxos', 'memory');
  const size = (f: string) => stat(f).then((x) => x.size, () => 0);
  const dirs = (await readdir(path.join(ws, 'sessions')).catch(() => [] as string[])).filter((d) => !d.startsWith('.'));
  const sizes = await Promise.all(dirs.map((d) => size(path.join(ws, 'sessions', d, 'MEMORY.md'))));
  const shared = await readFile(path.join(ws, 'MEMORY.md'), 'utf8');
  console.log(`${s.name}: ${(s.sent * 2).toLocaleString('en-US')} messages stored; agent MEMORY.md ${shared.length} bytes `
    + `(${shared.includes('Earlier conversation') ? 'WITH' : 'no'} checkpoints); ${sizes.length} session memories, `
    + `largest ${Math.max(0, ...sizes).toLocaleString('en-US')} bytes, total ${sizes.reduce((a, b) => a + b, 0).toLocaleString('en-US')} bytes`);
}
