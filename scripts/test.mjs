// Runs every package's uvu suite (kernel/test, kits/*/test, plugins/*/test, test/) through tsx, a few
// packages at a time, prints each suite's output, then one plain summary line:
// "N passed, N failed". Exits non-zero when a suite failed or no test ran at all.
// Usage: node scripts/test.mjs [dir ...]   (default: every package)
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const uvu = path.join(root, 'node_modules', 'uvu', 'bin.js');
const packages = (folder) => readdirSync(path.join(root, folder)).sort().map((d) => `${folder}/${d}`);
// The cross-package suite (test/) first: it is the longest (~500 s of ~1,000 s on 2 cores), and
// started last it ran alone at the end while the other job sat idle (17 min in all; first: ~13).
const all = ['.', 'kernel', ...packages('kits'), ...packages('plugins')]
  .map((d) => path.join(d, 'test'))
  .filter((d) => existsSync(path.join(root, d)));
const wanted = process.argv.slice(2).map((d) => (d.endsWith('test') ? d : path.join(d, 'test')).replace(/^\.\//, ''));
const dirs = wanted.length ? wanted : all;
const parallel = Number(process.env.ORYX_TEST_JOBS ?? Math.max(2, Math.min(4, os.cpus().length)));

function runSuite(dir) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', uvu, dir, '\\.test\\.ts$', '--no-color'], {
      cwd: root, env: { ...process.env, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('close', (code, signal) => resolve({ dir, code: code ?? 1, signal, out, ms: Date.now() - started }));
  });
}

const results = [];
let next = 0;
await Promise.all(Array.from({ length: Math.min(parallel, dirs.length) }, async () => {
  while (next < dirs.length) {
    const dir = dirs[next++];
    const r = await runSuite(dir);
    results.push(r);
    process.stdout.write(`\n=== ${r.dir} (${(r.ms / 1000).toFixed(1)} s, exit ${r.code})\n${r.out}`);
  }
}));

let total = 0, passed = 0, skipped = 0, failedSuites = [];
for (const r of results) {
  const num = (label) => Number(r.out.match(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm'))?.[1] ?? 0);
  const t = num('Total'), p = num('Passed'), s = num('Skipped');
  total += t; passed += p; skipped += s;
  if (r.code !== 0 || t === 0) failedSuites.push(r.dir);
}
const failed = total - passed - skipped;
if (failedSuites.length) console.log(`\nfailing suites: ${failedSuites.join(', ')}`);
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failedSuites.length || total === 0 || failed > 0 ? 1 : 0);
