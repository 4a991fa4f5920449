// Start-up time of `oryx --help` next to a bare `node -e 0`, as whole processes.
// Run: npm run build && node bench/cli-startup.mjs [runs]
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const runs = Number(process.argv[2] ?? 20);
const root = path.resolve(import.meta.dirname, '..');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function time(args) {
  spawnSync(process.execPath, args, { cwd: root }); // warm-up
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
    ms.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  }
  return ms;
}
const help = time(['bin/run.js', '--help']);
const bare = time(['-e', '0']);
console.log(`oryx --help  median ${median(help).toFixed(0)} ms  (min ${Math.min(...help).toFixed(0)}, max ${Math.max(...help).toFixed(0)})`);
console.log(`node -e 0    median ${median(bare).toFixed(0)} ms  (min ${Math.min(...bare).toFixed(0)}, max ${Math.max(...bare).toFixed(0)})`);
console.log(`oclif + manifests cost over bare node: ${(median(help) - median(bare)).toFixed(0)} ms`);
