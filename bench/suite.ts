// `npm run bench`: the project's own benchmarks in one table, each figure next to its
// reference and its goal (issue 35's where it sets one). Every part runs in its own fresh
// process. The loop's goals against other frameworks are ratios in one run of
// ../shared/bench-peers (its README), which this suite does not run.
//
//   loop        bench/steps.ts: µs per ReAct step (K = 10) with the in-memory store, and with
//               the sqlite + audit plugins on a fresh file (and its WAL pages per step, over 5
//               more runs) and on one already holding `fill` runs
//   start-up    whole `oryx` processes (median of `runs`) next to `node -e 0`, in a temporary
//               copy of this repository's quickstart workspace (the replayed model)
//   web         bench/web.ts: `oryx web` requests/s next to a bare Hono app
//
// Environment: BENCH_STEPS_RUNS (timed runs per loop process, default 400), BENCH_FILL (runs
// in the grown database, default 50000), BENCH_CLI_RUNS (default 9), BENCH_WEB_SECONDS
// (default 2), BENCH_ONLY (comma list of loop,cli,web). Needs a build: `npm run bench` does it.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { transformSync } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const only = new Set((process.env.BENCH_ONLY ?? 'loop,cli,web').split(','));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Row { figure: string; value: string; reference: string; ratio: string; goal: string }
const rows: Row[] = [];
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const load0 = loadavg()[0]!;
const started = performance.now();
if (only.has('loop')) loop();
if (only.has('cli')) startup();
if (only.has('web')) webServer();

const widths = (['figure', 'value', 'reference', 'ratio', 'goal'] as const).map((k) => Math.max(k.length, ...rows.map((r) => r[k].length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log(`\nnode ${process.version}, load average ${load0.toFixed(1)} at start and ${loadavg()[0]!.toFixed(1)} at the end, ${fmt((performance.now() - started) / 1000)} s\n`);
console.log(line(['figure', 'value', 'reference', 'ratio', 'goal']));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const r of rows) console.log(line([r.figure, r.value, r.reference, r.ratio, r.goal]));

/**
 * Runs a bench script in a fresh process and returns its `RESULT {json}` line. The script runs as
 * plain JavaScript (its types stripped by esbuild, written beside the installed packages so its
 * imports resolve as they do here): a process running it through tsx holds the TypeScript loader
 * too, ~38 MB of RSS on Node 20 (`node --import tsx -e 0` 77.5 MB against 39.3), which the loop's
 * peak RSS counted as OryxOS's until this was changed.
 */
function result<T>(script: string, args: string[], env: Record<string, string> = {}): T {
  const plain = path.join(root, 'node_modules', '.cache', 'oryx-bench', script.replace(/\.ts$/, '.mjs'));
  mkdirSync(path.dirname(plain), { recursive: true });
  writeFileSync(plain, transformSync(readFileSync(path.join(root, 'bench', script), 'utf8'), { loader: 'ts', format: 'esm', target: 'node20', sourcefile: script }).code);
  const r = spawnSync(process.execPath, ['--expose-gc', plain, ...args], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, ...env } });
  const found = /^RESULT (.*)$/m.exec(r.stdout ?? '');
  if (r.status !== 0 || !found) throw new Error(`bench/${script} ${args.join(' ')} failed (exit ${r.status}):\n${r.stderr || r.stdout}`);
  return JSON.parse(found[1]!) as T;
}

function loop(): void {
  type Steps = { usPerStep: number; peakRssMb: number; retainedKbPerRun?: number; walPagesPerStep?: number; commitsPerStep?: number };
  const runs = String(env('BENCH_STEPS_RUNS', 400));
  const fill = env('BENCH_FILL', 50_000);
  process.stderr.write('loop: in-memory store … ');
  const memory = result<Steps>('steps.ts', ['memory', String(Number(runs) * 4)]);
  process.stderr.write('sqlite + audit … ');
  const sqlite = result<Steps>('steps.ts', ['sqlite', runs], { BENCH_WAL_RUNS: '5' });
  process.stderr.write(`sqlite + audit after ${fmt(fill)} runs …\n`);
  const grown = result<Steps>('steps.ts', ['sqlite', runs, String(fill)]);
  rows.push(
    { figure: 'loop, in-memory store: µs per step', value: fmt(memory.usPerStep, 1), reference: '', ratio: '', goal: 'peers: ≤ 0.25× AI SDK 7' },
    { figure: 'loop, in-memory store: peak RSS MB', value: fmt(memory.peakRssMb), reference: '', ratio: '', goal: '' },
    { figure: 'loop, sqlite + audit: µs per step', value: fmt(sqlite.usPerStep, 1), reference: `in-memory ${fmt(memory.usPerStep, 1)}`, ratio: `${fmt(sqlite.usPerStep / memory.usPerStep, 1)}×`, goal: 'peers: ≤ 0.7× ai-sdk-v7-sqlite-msg' },
    { figure: 'loop, sqlite + audit: WAL pages per step', value: fmt(sqlite.walPagesPerStep ?? NaN, 1), reference: `${fmt(sqlite.commitsPerStep ?? NaN, 1)} commits per step`, ratio: '', goal: '≤ 8' },
    { figure: 'loop, sqlite + audit: peak RSS MB', value: fmt(sqlite.peakRssMb), reference: '', ratio: '', goal: '≤ 90' },
    { figure: 'loop, sqlite + audit: heap KB left per run (after GC)', value: fmt(sqlite.retainedKbPerRun ?? NaN, 2), reference: `in-memory store ${fmt(memory.retainedKbPerRun ?? NaN, 2)}`, ratio: '', goal: '≤ 1' },
    { figure: `loop, sqlite + audit after ${fmt(fill)} runs: µs per step`, value: fmt(grown.usPerStep, 1), reference: `fresh ${fmt(sqlite.usPerStep, 1)}`, ratio: `${fmt(grown.usPerStep / sqlite.usPerStep, 2)}×`, goal: '≤ 1.2×' },
  );
}

function startup(): void {
  const runs = env('BENCH_CLI_RUNS', 9);
  // A copy of the quickstart workspace, so the repository's own database is left alone.
  const dir = mkdtempSync(path.join(tmpdir(), 'oryx-bench-cli-'));
  for (const f of ['oryx.config.ts', 'README.md']) cpSync(path.join(root, f), path.join(dir, f));
  cpSync(path.join(root, '.oryxos'), path.join(dir, '.oryxos'), { recursive: true, filter: (src) => !/oryx\.db/.test(path.basename(src)) });
  const question = /(?:npx oryx|bin\/run\.js) run "([^"]+)"/.exec(readFileSync(path.join(root, 'README.md'), 'utf8'))?.[1];
  if (!question) throw new Error('README.md has no quickstart `bin/run.js run "…"` line');
  const bin = path.join(root, 'bin', 'run.js');
  // CPU time (user + system, from /usr/bin/time when the machine has it) next to wall time:
  // on a loaded machine the wall clock mostly measures the other work, CPU time much less so.
  const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
  const time = (args: string[]) => {
    const once = () => {
      const t0 = performance.now();
      const r = timeBin
        ? spawnSync(timeBin, ['-f', 'CPU %U %S', process.execPath, ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } })
        : spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
      const wall = performance.now() - t0;
      if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
      const cpu = /^CPU ([\d.]+) ([\d.]+)$/m.exec(r.stderr);
      return { wall, cpu: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : NaN };
    };
    once(); // warm-up: file cache, first migration of the copy's database
    const all = Array.from({ length: runs }, once);
    return { wall: median(all.map((x) => x.wall)), cpu: median(all.map((x) => x.cpu)) };
  };
  // The project as the quickstart leaves it: one run has compiled oryx.config.ts into the
  // project's cache (read commands use that cache but never write it, so without this step every
  // read command would recompile the config: about 300 ms of CPU a user pays only once).
  time([bin, 'run', question]);
  const cases: [string, string[], number][] = [
    ['oryx --help', ['--help'], 3],
    ['oryx agents', ['agents'], 3],
    ['oryx sessions', ['sessions'], 3],
    ['oryx tools', ['tools'], 3],
    ['oryx run (quickstart)', ['run', question], 4],
  ];
  try {
    process.stderr.write('start-up: ');
    // Interleaved: node -e 0 is timed before each command, the reference is the median of those.
    const bare: { wall: number; cpu: number }[] = [];
    const timed = cases.map(([name, args, goal]) => {
      bare.push(time(['-e', '0']));
      process.stderr.write(`${name} … `);
      return { name, ...time([bin, ...args]), goal };
    });
    process.stderr.write('\n');
    const node = { wall: median(bare.map((b) => b.wall)), cpu: median(bare.map((b) => b.cpu)) };
    const cpuText = (ms: number) => (Number.isNaN(ms) ? '' : `, CPU ${fmt(ms)}`);
    rows.push({ figure: 'node -e 0: ms wall (median)', value: `${fmt(node.wall)}${cpuText(node.cpu)}`, reference: '', ratio: '', goal: '' });
    for (const { name, wall, cpu, goal } of timed) {
      rows.push({
        figure: `${name}: ms wall (median of ${runs})`, value: `${fmt(wall)}${cpuText(cpu)}`, reference: `node -e 0`,
        ratio: `${fmt(wall / node.wall, 1)}×${Number.isNaN(cpu) ? '' : ` (CPU ${fmt(cpu / node.cpu, 1)}×)`}`, goal: `≤ ${goal}×`,
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function webServer(): void {
  process.stderr.write('web: oryx web next to bare Hono …\n');
  type Web = Record<'bareHealth' | 'oryxHealth' | 'bareInvoke' | 'oryxInvoke', number>;
  const w = result<Web>('web.ts', [String(env('BENCH_WEB_SECONDS', 2)), '32', '3']);
  rows.push(
    { figure: 'oryx web GET /health: req/s', value: fmt(w.oryxHealth), reference: `bare Hono ${fmt(w.bareHealth)}`, ratio: `${fmt(w.oryxHealth / w.bareHealth, 2)}×`, goal: '≥ 0.9×' },
    { figure: 'oryx web session invocation: req/s', value: fmt(w.oryxInvoke), reference: `bare Hono + service ${fmt(w.bareInvoke)}`, ratio: `${fmt(w.oryxInvoke / w.bareInvoke, 2)}×`, goal: '≥ 0.8×' },
  );
}
