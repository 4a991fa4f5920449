// Cost of a sandbox decision and of a sandboxed tool call.
// Run (after `npm run build`: tsc, then the bundles tests and benches import): npx tsx bench/sandbox.ts [iterations]
// Prints one line per case: median and p95 latency (µs) and decisions per second.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SandboxAction } from '@oryxos/contracts';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import sandbox from '@oryxos/plugin-sandbox';
import tools from '@oryxos/plugin-tools';

const n = Number(process.argv[2] ?? 2000);
const dir = await mkdtemp(path.join(tmpdir(), 'oryx-bench-sandbox-'));
await mkdir(path.join(dir, 'a/b/c/d'), { recursive: true });
await writeFile(path.join(dir, 'a/b/c/d/file.txt'), 'x'.repeat(1000));
await symlink('a/b/c/d', path.join(dir, 'link'));

const stats = (samples: number[]) => {
  samples.sort((x, y) => x - y);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  const mean = samples.reduce((s, x) => s + x, 0) / samples.length;
  return { p50: at(0.5) * 1000, p95: at(0.95) * 1000, perSecond: 1000 / mean };
};
const line = (name: string, s: ReturnType<typeof stats>) =>
  console.log(`${name.padEnd(44)} p50 ${s.p50.toFixed(1).padStart(8)} µs   p95 ${s.p95.toFixed(1).padStart(8)} µs   ${Math.round(s.perSecond).toString().padStart(7)}/s`);

const t = await testKernel({
  dir,
  plugins: [sandbox({
    files: { read: ['.'], write: ['.'], deny: ['.oryxos/oryx.db'] },
    exec: { allow: ['ls', 'git', { command: 'node', args: ['--version'] }] },
    http: { allow: ['api.example.test', '*.wild.test', 'http://127.0.0.1:8080', 'http://*:8081'] },
    smtp: { allow: ['smtp.example.test:587'] },
  })],
  agents: { plain: { tools: [] }, narrowed: { tools: [], sandbox: { files: { read: ['a'] }, exec: { allow: [] } } } },
});
const box = t.kernel.service('sandbox');
const plain = await t.kernel.agents.load('plain');
const narrowed = await t.kernel.agents.load('narrowed');

const cases: [string, SandboxAction, typeof plain][] = [
  ['file read, existing, 5 levels deep', { kind: 'file', op: 'read', path: 'a/b/c/d/file.txt' }, plain],
  ['file write, not created yet (walks up)', { kind: 'file', op: 'write', path: 'a/b/c/d/new/deeper/x.txt' }, plain],
  ['file read through a symlink', { kind: 'file', op: 'read', path: 'link/file.txt' }, plain],
  ['file read, denied (outside)', { kind: 'file', op: 'read', path: '/etc/passwd' }, plain],
  ['file read, agent-narrowed', { kind: 'file', op: 'read', path: 'a/b/c/d/file.txt' }, narrowed],
  ['exec by name on PATH', { kind: 'exec', command: 'ls', args: ['-la'] }, plain],
  ['exec denied (not listed)', { kind: 'exec', command: 'sh', args: ['-c', 'x'] }, plain],
  ['http exact host', { kind: 'http', url: 'https://api.example.test/v1/x', method: 'GET' }, plain],
  ['http IP literal with port', { kind: 'http', url: 'http://127.0.0.1:8080/x', method: 'GET' }, plain],
  ['http wildcard + DNS lookup (localhost)', { kind: 'http', url: 'http://localhost:8081/', method: 'GET' }, plain],
  ['http denied (userinfo)', { kind: 'http', url: 'http://api.example.test@evil.test/', method: 'GET' }, plain],
  ['smtp exact', { kind: 'smtp', host: 'smtp.example.test', port: 587 }, plain],
];

console.log(`sandbox decisions, ${n} iterations each (node ${process.version}, ${process.platform})`);
for (const [name, action, agent] of cases) {
  for (let i = 0; i < Math.min(200, n); i++) await box.enforce(action, { agent });
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await box.enforce(action, { agent });
    samples.push(performance.now() - start);
  }
  line(name, stats(samples));
}
await t.close();

// A whole tool call through the kernel: scripted model → executor → actions() → enforce →
// execute (enforce again at I/O) → afterTool. Measured per call, 50 calls per model turn.
const calls = 50;
const turns = Math.max(1, Math.floor(n / calls / 4));
for (const [name, call] of [
  ['read_file via the kernel (1 KB file)', { name: 'read_file', args: { path: 'a/b/c/d/file.txt' } }],
  ['write_file via the kernel (atomic)', { name: 'write_file', args: { path: 'a/out.txt', content: 'y'.repeat(1000) } }],
  ['shell ls via the kernel (spawns)', { name: 'shell', args: { command: 'ls', args: [] } }],
] as const) {
  const script = Array.from({ length: turns }, () => [{ toolCalls: Array.from({ length: calls }, () => ({ ...call })) }, { text: 'ok' }]).flat();
  const k = await testKernel({ dir, plugins: [scripted(script), sandbox({ files: { read: ['.'], write: ['.'] }, exec: { allow: ['ls'] } }), tools()] });
  const samples: number[] = [];
  let last = 0;
  k.kernel.hooks.afterTool.tap('bench', (r) => { const now = performance.now(); samples.push(now - last); last = now; return r; });
  k.kernel.hooks.beforeTool.tap('bench', () => { last = performance.now(); return undefined; });
  for (let i = 0; i < turns; i++) await k.service.process({ agent: 'assistant', message: 'go' });
  line(name, stats(samples));
  await k.close();
}
await rm(dir, { recursive: true, force: true });
