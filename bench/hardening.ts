// /health latency of the built `oryx web` while a malicious MCP server (stdio and HTTP) and a
// scripted model attack it, next to an idle server; plus the costs the defences add.
//
// Run (after `npm run build`): node --import tsx bench/hardening.ts [rounds=5]
//
// Each attack is one REST run ("<tool> <args>", see test/hostile-project.ts) repeated `rounds`
// times while a client polls GET /health every 10 ms, each poll waiting for the previous one,
// so a blocked event loop shows as one long poll. Reported: polls, p50, p99 and max latency.
// Then, in this process: the edit_file match on its worst case, a first and a cached tool
// schema compile, and the audit redaction of one 8 KiB row.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { compileToolSchema } from '@oryxos/schema-kit';
import { createRedactor } from '@oryxos/plugin-audit/trail';
import { occurrences } from '../plugins/tools/src/run/edit-file.ts';
import { healthDuring, hostileProject } from '../test/hostile-project.ts';

const rounds = Number(process.argv[2] ?? 5);
const redos = JSON.stringify({ text: `${'a'.repeat(31)}!` });
const attacks: [string, string, string][] = [
  ['idle (a trivial tool call)', 'stdio', 'evil__argv {}'],
  ['stdio: ReDoS pattern, 31-character argument', 'stdio', `evil__redos ${redos}`],
  ['stdio: invalid schema', 'stdio', 'evil__bad_required {}'],
  ['stdio: 50 MB result', 'stdio', 'evil__huge {"mb":50}'],
  ['http: ReDoS pattern, 31-character argument', 'http', `hevil__redos ${redos}`],
  ['http: invalid schema', 'http', 'hevil__bad_pattern {}'],
  ['http: 50 MB result', 'http', 'hevil__huge {"mb":50}'],
  ['stdio: 10,000 tools', 'many', 'many__filler_1 {}'],
  ['edit_file: 2 MB file, 30,000-character old', 'files', `edit_file ${JSON.stringify({ path: 'big.txt', old: 'a'.repeat(30_000), new: 'b' })}`],
];

const at = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const ms = (n: number) => `${n.toFixed(1)} ms`;

const p = await hostileProject();
try {
  await writeFile(path.join(p.dir, 'big.txt'), 'a'.repeat(2 * 1024 * 1024));
  await p.run('stdio', 'evil__argv {}'); // warm up: servers started, modules loaded
  console.log(`/health while each attack runs (${rounds} runs each, a poll every 10 ms)\n`);
  console.log(`${'attack'.padEnd(46)} ${'polls'.padStart(6)} ${'p50'.padStart(10)} ${'p99'.padStart(10)} ${'max'.padStart(10)} ${'run'.padStart(10)}`);
  for (const [name, agent, message] of attacks) {
    const latencies: number[] = [];
    let runMs = 0;
    for (let i = 0; i < rounds; i++) {
      const started = performance.now();
      const r = await healthDuring(p.web.url, p.run(agent, message), 10);
      runMs += performance.now() - started;
      if (r.failures || r.result.status !== 200) throw new Error(`${name}: ${r.failures} failed polls, run status ${r.result.status}`);
      latencies.push(...r.latencies);
    }
    latencies.sort((a, b) => a - b);
    console.log(`${name.padEnd(46)} ${String(latencies.length).padStart(6)} ${ms(at(latencies, 0.5)).padStart(10)} ${ms(at(latencies, 0.99)).padStart(10)} ${ms(latencies.at(-1)!).padStart(10)} ${ms(runMs / rounds).padStart(10)}`);
  }
} finally {
  await p.close();
}

console.log('\nin-process costs');
const text = 'a'.repeat(2 * 1024 * 1024);
let started = performance.now();
const found = occurrences(text, 'a'.repeat(30_000));
console.log(`edit_file match, 2 MB × 30,000 characters (${found.count} overlapping matches): ${ms(performance.now() - started)}`);
started = performance.now();
await compileToolSchema({ type: 'object', properties: { a: { type: 'string', pattern: '^x+$' } } }, 'first');
console.log(`first tool schema compile (loads Ajv, ajv-formats, re2js): ${ms(performance.now() - started)}`);
const schemas = Array.from({ length: 200 }, (_, i) => ({ type: 'object', properties: { path: { type: 'string', description: `p${i}` }, n: { type: 'integer', minimum: 0 } }, required: ['path'] }));
started = performance.now();
for (const s of schemas) await compileToolSchema(s, 'bench');
console.log(`tool schema compile, each of 200: ${ms((performance.now() - started) / 200)}`);
const check = (await compileToolSchema({ type: 'object', properties: { t: { type: 'string', pattern: '^(a+)+$' } } }, 'redos')).check;
started = performance.now();
check({ t: `${'a'.repeat(100_000)}!` });
console.log(`"^(a+)+$" against 100,000 characters (RE2): ${ms(performance.now() - started)}`);
const redact = createRedactor();
await redact('warm up');
const row = `${'log line with nothing secret in it. '.repeat(200)}DB_PASSWORD=hunter2hunter2 {"api_key": "abc123def456"}`.slice(0, 8192);
started = performance.now();
for (let i = 0; i < 100; i++) await redact(row);
console.log(`audit redaction of an 8 KiB row (secretlint preset + assignments): ${ms((performance.now() - started) / 100)}`);
