// What OS confinement (bubblewrap) adds to a `shell` call, and to one with network through the proxy.
// Run: npm run build && npx tsx bench/confine.ts [calls-per-round] [rounds]
// Modes run interleaved, round by round, so machine load hits them alike; prints p10, the
// median and p95 of a whole `shell` call through the kernel (beforeTool → afterTool) per mode,
// and the median difference against the unconfined call. Read it with the load average beside it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import sandbox, { type SandboxOptions } from '@oryxos/plugin-sandbox';
import tools from '@oryxos/plugin-tools';

const calls = Number(process.argv[2] ?? 40);
const rounds = Number(process.argv[3] ?? 5);
const dir = await mkdtemp(path.join(tmpdir(), 'oryx-bench-confine-'));
await writeFile(path.join(dir, 'notes.txt'), 'x\n');

const base: SandboxOptions = { files: { read: ['.'], write: ['.'] }, exec: { allow: ['cat'] } };
const modes: [string, SandboxOptions][] = [
  ['unconfined (confine: false)', { ...base, confine: false }],
  ['confined, no network', base],
  ['confined, network through the proxy', { ...base, http: { allow: ['api.example.test'] } }],
];
const samples = new Map<string, number[]>(modes.map(([name]) => [name, []]));

async function round(name: string, options: SandboxOptions): Promise<void> {
  // The same file spelled three ways in turn: the kernel's loop guard stops a run that repeats a call 3 times in a row.
  const call = (i: number) => ({ name: 'shell', args: { command: 'cat', args: [`${'./'.repeat(i % 3)}notes.txt`] } });
  // At most 10 calls per model step (the kernel runs 16 of one response at most).
  const steps = Array.from({ length: Math.ceil(calls / 10) }, (_, s) => ({ toolCalls: Array.from({ length: Math.min(10, calls - s * 10) }, (_, i) => call(s * 10 + i)) }));
  const k = await testKernel({ dir, plugins: [scripted([...steps, { text: 'ok' }]), sandbox(options), tools()] });
  let started = 0;
  let failed = 0;
  k.kernel.hooks.beforeTool.tap('bench', () => { started = performance.now(); return undefined; });
  k.kernel.hooks.afterTool.tap('bench', (r) => { samples.get(name)!.push(performance.now() - started); if (r.isError) failed++; return r; });
  await k.service.process({ agent: 'assistant', message: 'go' });
  await k.close({ keep: true });
  if (failed) throw new Error(`${name}: ${failed} call(s) failed`);
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
// one warm-up round each (first bwrap start, the proxy module, page cache)
for (const [name, options] of modes) { await round(name, options); samples.get(name)!.length = 0; }
for (let r = 0; r < rounds; r++) for (const [name, options] of modes) await round(name, options);

console.log(`shell "cat notes.txt" through the kernel, ${calls} calls × ${rounds} rounds per mode (node ${process.version}, ${process.platform})`);
const plain = quantile(samples.get(modes[0]![0])!, 0.5);
for (const [name] of modes) {
  const xs = samples.get(name)!;
  const p50 = quantile(xs, 0.5);
  console.log(`${name.padEnd(38)} p10 ${quantile(xs, 0.1).toFixed(2).padStart(7)} ms   p50 ${p50.toFixed(2).padStart(7)} ms   p95 ${quantile(xs, 0.95).toFixed(2).padStart(7)} ms   p50 +${(p50 - plain).toFixed(2)} ms`);
}
await rm(dir, { recursive: true, force: true });
