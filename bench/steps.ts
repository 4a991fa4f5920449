// Per-step cost of whole runs through the kernel, in the peer harness's scenario
// (../shared/bench-peers): K-step runs, an instant scripted model that calls the tool `echo`
// (arguments checked as the built-in tools check theirs: the kernel's `shape`; BENCH_ECHO=arktype
// checks them with arktype, as they did before) on steps 1..K-1 and answers on step K, each run
// on a new session. Warms up, then times R sequential runs; prints one `RESULT {json}` line.
//
// Run (after npm run build): node --expose-gc --import tsx bench/steps.ts memory|sqlite [runs] [fill]
//   memory  the kernel's in-memory store, allow-all sandbox
//   sqlite  @oryxos/plugin-sqlite (a fresh file) + @oryxos/plugin-audit
//   fill    sqlite only: first fill the database with this many finished runs (sessions,
//           messages and audit rows shaped like the measured ones, written in bulk SQL), to
//           see whether the per-step cost stays flat as the database grows
// BENCH_WAL_RUNS=n (sqlite): after the timed runs, n more runs on an emptied WAL, then which
// b-trees each of their commits wrote (read from the WAL's frame headers; the peer harness's
// step is two commits, each page it dirties one WAL frame of two `pwrite64` calls).
// `npm run bench` runs it as part of bench/suite.ts.
// Two what-ifs for the decisions issue 35's WAL target needs, measured through the whole product
// (bench/step-shapes.ts models the same with raw statements), sqlite only:
//   BENCH_NO_AUDIT_INDEXES=1  drops llm_calls_by_session and tool_invocations_by_session after start
//   BENCH_ORDERED_IDS=1       every crypto.randomUUID() of the process (session and run ids) is
//                             time-ordered, UUIDv7-like (48 bits of milliseconds, a counter, random)
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { shape } from '@oryxos/schema-kit';
import type { Database } from '@oryxos/contracts';
import type { Plugin, Tool } from '@oryxos/kernel';
import type { Provider } from '@oryxos/provider-spec';
import { allowAll, testKernel } from '@oryxos/kernel/testing';

const mode = process.argv[2] ?? 'memory';
const R = Number(process.argv[3] ?? 1000);
const fill = Number(process.argv[4] ?? 0);
const K = 10;
const WARMUP_MS = Number(process.env.WARMUP_MS ?? 1500);
if (mode !== 'memory' && mode !== 'sqlite') throw new Error(`mode must be memory or sqlite, not ${mode}`);

let step = 0;
const counters = { model: 0, tool: 0 };
const provider: Provider = {
  name: 'bench', defaultModel: 'bench-model',
  async chat(request) {
    counters.model++;
    step++;
    const done = step >= K;
    return {
      message: done ? { role: 'assistant', content: `done after ${K - 1} tool calls` }
        : { role: 'assistant', content: '', toolCalls: [{ id: `call_${step}`, name: 'echo', args: { text: `hi ${step}` } }] },
      usage: { inputTokens: 100, outputTokens: 10 }, finishReason: done ? 'stop' : 'tool_calls', model: request.model,
    };
  },
};
const echoArgs = shape.object({ text: shape.string() });
let validate = (args: unknown) => { const found = shape.check(echoArgs, args); return found && `${found.path.join('.')} ${found.problem}`; };
if (process.env.BENCH_ECHO === 'arktype') {
  const { type } = await import('arktype');
  const arkArgs = type({ text: 'string', '+': 'reject' });
  validate = (args) => { const out = arkArgs(args); return out instanceof type.errors ? out.summary : undefined; };
}
const echo: Tool = {
  name: 'echo', description: 'Echo text back', source: 'plugin',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  validate,
  async execute(args) { counters.tool++; return String((args as { text: string }).text); },
};
const bench: Plugin = { name: 'bench', version: '1.0.0', kernel: '^1', setup(ctx) { ctx.registerProvider(provider); ctx.registerTool(echo); } };

if (process.env.BENCH_ORDERED_IDS === '1') {
  const random = crypto.randomUUID.bind(crypto);
  let last = 0;
  let counter = 0;
  crypto.randomUUID = () => {
    const now = Date.now();
    counter = now === last ? counter + 1 : 0;
    last = now;
    const hex = `${now.toString(16).padStart(12, '0')}${counter.toString(16).padStart(3, '0')}`;
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(12, 15)}-${random().slice(19)}` as ReturnType<typeof random>;
  };
}

const dir = await mkdtemp(path.join(tmpdir(), 'oryx-bench-steps-'));
const plugins: Plugin[] = [bench, allowAll()];
if (mode === 'sqlite') {
  const [{ default: sqlite }, { default: audit }] = await Promise.all([import('@oryxos/plugin-sqlite'), import('@oryxos/plugin-audit')]);
  plugins.push(sqlite(), audit());
}
const t = await testKernel({ plugins, dir, agents: { assistant: { tools: ['echo'], settings: { max_iterations: K + 5 } } } });
const runOnce = async () => {
  step = 0;
  const r = await t.service.process({ agent: 'assistant', message: 'say hi via echo' });
  if (r.answer !== `done after ${K - 1} tool calls`) throw new Error(`unexpected answer ${JSON.stringify(r.answer)} (${r.stopReason})`);
};

if (mode === 'sqlite' && process.env.BENCH_NO_AUDIT_INDEXES === '1') {
  const db = t.kernel.service('database') as Database;
  for (const index of ['llm_calls_by_session', 'tool_invocations_by_session']) await db.execute(`DROP INDEX ${index}`);
}
if (fill > 0) await fillDatabase(t.kernel.service('database') as Database, fill);
const w0 = performance.now();
for (let i = 0; i < 20 || performance.now() - w0 < WARMUP_MS; i++) await runOnce();

counters.model = 0;
counters.tool = 0;
// The heap after a full GC before and after the timed runs (with --expose-gc): what a run leaves
// behind. A durable store keeps a run's messages in its file, so ~0 is right for sqlite; the
// in-memory store keeps each session (~6.5 KB a run of this shape).
const gc = (globalThis as { gc?: () => void }).gc;
const heapAfterGc = () => { gc!(); gc!(); return process.memoryUsage().heapUsed / 1024; };
const heap0 = gc ? heapAfterGc() : undefined;
let peakRss = process.memoryUsage.rss();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < R; i++) {
  await runOnce();
  if (i % 20 === 0) peakRss = Math.max(peakRss, process.memoryUsage.rss());
}
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
if (counters.model !== R * K || counters.tool !== R * (K - 1)) throw new Error(`counted ${counters.model} model / ${counters.tool} tool calls, expected ${R * K} / ${R * (K - 1)}`);
peakRss = Math.max(peakRss, process.memoryUsage.rss());
const retainedKbPerRun = heap0 === undefined ? undefined : (heapAfterGc() - heap0) / R;
const walRuns = mode === 'sqlite' ? Number(process.env.BENCH_WAL_RUNS ?? 0) : 0;
const wal = walRuns > 0 ? await walPages(t.kernel.service('database') as Database, walRuns) : undefined;
await t.close();
await rm(dir, { recursive: true, force: true });
console.log(`RESULT ${JSON.stringify({
  mode, fill, runs: R, usPerStep: (ms * 1000) / (R * K), cpuUsPerStep: (cpu.user + cpu.system) / (R * K), peakRssMb: peakRss / 2 ** 20,
  ...(retainedKbPerRun === undefined ? {} : { retainedKbPerRun }),
  ...(wal ? { walPagesPerStep: wal.frames / (walRuns * K), commitsPerStep: wal.commits / (walRuns * K) } : {}),
})}`);

/**
 * `runs` finished runs in bulk: per run a session, 1 user + K assistant + K-1 tool messages,
 * K llm_calls and K-1 tool_invocations rows, with random session ids like the real ones.
 */
async function fillDatabase(db: Database, runs: number): Promise<void> {
  const now = new Date().toISOString();
  await db.transaction(async (tx) => {
    await tx.execute('CREATE TEMP TABLE fill_runs (n INTEGER PRIMARY KEY, id TEXT NOT NULL)');
    await tx.execute(`WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < ?)
      INSERT INTO fill_runs (n, id) SELECT n, lower(hex(randomblob(16))) FROM r`, [runs]);
    await tx.execute(`INSERT INTO sessions (id, agent, title, created_at, updated_at, message_count, counted_seq, turns)
      SELECT id, 'assistant', 'say hi via echo', ?, ?, ?, ?, 1 FROM fill_runs`, [now, now, 2 * K, 2 * K]);
    await tx.execute(`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?)
      INSERT INTO messages (session_id, seq, role, content, tool_calls, tool_call_id, name, is_error, created_at)
      SELECT f.id, s.i,
        CASE WHEN s.i = 1 THEN 'user' WHEN s.i % 2 = 0 THEN 'assistant' ELSE 'tool' END,
        CASE WHEN s.i = 1 THEN 'say hi via echo' WHEN s.i = ? THEN 'done' WHEN s.i % 2 = 0 THEN '' ELSE 'hi ' || (s.i / 2) END,
        CASE WHEN s.i % 2 = 0 AND s.i < ? THEN '[{"id":"call_' || (s.i / 2) || '","name":"echo","args":{"text":"hi ' || (s.i / 2) || '"}}]' END,
        CASE WHEN s.i > 1 AND s.i % 2 = 1 THEN 'call_' || (s.i / 2) END,
        CASE WHEN s.i > 1 AND s.i % 2 = 1 THEN 'echo' END,
        CASE WHEN s.i > 1 AND s.i % 2 = 1 THEN 0 END, ?
      FROM fill_runs f, s`, [2 * K, 2 * K, 2 * K, now]);
    await tx.execute(`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?)
      INSERT INTO llm_calls (session_id, run_id, agent, iteration, attempt, provider, model, input_tokens, output_tokens, latency_ms, finish_reason, status, created_at)
      SELECT f.id, 'run-' || f.n, 'assistant', s.i, 1, 'bench', 'bench-model', 100, 10, 0, CASE WHEN s.i = ? THEN 'stop' ELSE 'tool_calls' END, 'ok', ?
      FROM fill_runs f, s`, [K, K, now]);
    await tx.execute(`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?)
      INSERT INTO tool_invocations (session_id, run_id, agent, iteration, tool_call_id, tool, source, input, input_chars, output, output_chars, status, retryable, duration_ms, created_at)
      SELECT f.id, 'run-' || f.n, 'assistant', s.i, 'call_' || s.i, 'echo', 'plugin', '{"text":"hi ' || s.i || '"}', 14, 'hi ' || s.i, 4, 'ok', 0, 0, ?
      FROM fill_runs f, s`, [K - 1, now]);
    await tx.execute('DROP TABLE fill_runs');
  });
  await db.query('PRAGMA wal_checkpoint(TRUNCATE)');
}

/** Runs `runs` more runs on an emptied WAL and prints, per kind of commit, the b-trees it wrote (dbstat names them). */
async function walPages(db: Database, runs: number): Promise<{ commits: number; frames: number }> {
  await db.query('PRAGMA wal_checkpoint(TRUNCATE)');
  for (let i = 0; i < runs; i++) await runOnce();
  const file = (await db.query<{ file: string }>("SELECT file FROM pragma_database_list WHERE name = 'main'"))[0]!.file;
  const owners = new Map((await db.query<{ name: string; pageno: number; pagetype: string }>('SELECT name, pageno, pagetype FROM dbstat'))
    .map((r) => [Number(r.pageno), Number(r.pageno) === 1 ? 'page 1 (header)' : r.pagetype === 'internal' ? `${r.name}(interior)` : r.name] as const));
  const wal = await readFile(`${file}-wal`);
  const pageSize = wal.readUInt32BE(8);
  const kinds = new Map<string, number>();
  let commits = 0;
  let frames = 0;
  let pages: string[] = [];
  // Frames of this WAL generation carry the header's salts; a checkpoint that restarted the WAL
  // (the sqlite plugin checkpoints when idle and every two seconds) leaves older frames behind them: stop there.
  const salts = wal.subarray(16, 24);
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (!wal.subarray(at + 8, at + 16).equals(salts)) {
      console.log('WAL restarted during the measurement (a checkpoint): the count below is of the last generation only; use fewer BENCH_WAL_RUNS');
      break;
    }
    pages.push(owners.get(wal.readUInt32BE(at)) ?? `page ${wal.readUInt32BE(at)}`);
    frames++;
    if (wal.readUInt32BE(at + 4) === 0) continue; // not a commit's last frame
    const kind = pages.sort().join(' + ');
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    commits++;
    pages = [];
  }
  console.log(`WAL ${runs} runs: ${commits} commits, ${frames} frames (${(frames / (runs * K)).toFixed(1)} per step)`);
  for (const [kind, n] of [...kinds].sort((a, b) => b[1] - a[1])) console.log(`${String(n).padStart(5)}  ${kind}`);
  return { commits, frames };
}
