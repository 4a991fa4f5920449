// Benchmark of @oryxos/plugin-sqlite and @oryxos/plugin-audit.
//
// Run from the repository root, after building (the @oryxos/* imports resolve to dist/):
//   npm run build && node --import tsx bench/sqlite.ts
// Optional: BENCH_APPENDS=1000 BENCH_RUNS=10 BENCH_STEPS=50 to change the sample sizes.
//
// 1. Append cost: one-message appends to a session that already holds 10 messages and to
//    one that holds 10,000, on both drivers (each append is its own transaction). Also the
//    cost of history(id, 20), what every run reads.
// 2. Audit overhead per loop step: the same scripted multi-step runs (one tool call per
//    step) with sqlite alone and with sqlite + audit; the difference per step is the cost
//    of one llm_calls row and one tool_invocations row.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Message } from '@oryxos/provider-spec';
import type { Plugin, Tool } from '@oryxos/kernel';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import sqlite, { enableWal, migrate, openDatabase } from '@oryxos/plugin-sqlite';
import { SqlSessionStore } from '@oryxos/sql-store';
import audit from '@oryxos/plugin-audit';

const APPENDS = Number(process.env.BENCH_APPENDS ?? 1000);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const STEPS = Number(process.env.BENCH_STEPS ?? 50);

const stats = (samples: number[]) => {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { median: at(0.5), p95: at(0.95), mean: s.reduce((a, b) => a + b, 0) / s.length };
};
const us = (ms: number) => `${(ms * 1000).toFixed(0).padStart(6)} µs`;

async function appendBench(dir: string, driver: 'libsql' | 'client') {
  const db = await openDatabase({ kind: 'file', path: path.join(dir, `append-${driver}.db`) }, { driver, busyTimeoutMs: 5000 });
  await enableWal(db);
  await migrate(db);
  const store = new SqlSessionStore(() => db);
  const message = (i: number): Message => (i % 2
    ? { role: 'assistant', content: `answer ${i} `.repeat(20) }
    : { role: 'user', content: `question ${i} `.repeat(10) });
  for (const size of [10, 10_000]) {
    const { id } = await store.create({ agent: 'bench' });
    for (let i = 0; i < size; i += 100) await store.append(id, Array.from({ length: Math.min(100, size - i) }, (_, j) => message(i + j)));
    const times: number[] = [];
    for (let i = 0; i < APPENDS; i++) {
      const t = performance.now();
      await store.append(id, [message(size + i)]);
      times.push(performance.now() - t);
    }
    const history: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      await store.history(id, 20);
      history.push(performance.now() - t);
    }
    const a = stats(times);
    const h = stats(history);
    console.log(`  ${driver.padEnd(6)} at ${String(size).padStart(6)} messages: append median ${us(a.median)}  p95 ${us(a.p95)}  mean ${us(a.mean)} | history(20) median ${us(h.median)}`);
  }
  await store.close();
  await db.close();
}

const noop: Tool = {
  name: 'noop', description: 'does nothing', source: 'plugin',
  inputSchema: { type: 'object', properties: { i: { type: 'number' } } },
  async execute(args) { return `ok ${args.i}`; },
};
const tools: Plugin = { name: 'bench-tools', version: '1.0.0', kernel: '^1', setup(k) { k.registerTool(noop); } };

async function loopBench(dir: string, withAudit: boolean): Promise<number[]> {
  const script = Array.from({ length: RUNS }, () => [
    ...Array.from({ length: STEPS }, (_, i) => ({ toolCalls: [{ name: 'noop', args: { i } }] })),
    { text: 'done' },
  ]).flat();
  const plugins = [scripted(script), tools, sqlite(), ...(withAudit ? [audit()] : [])];
  const k = await testKernel({ plugins, dir, agents: { assistant: { tools: ['*'], settings: { max_iterations: STEPS + 5 } } } });
  const perStep: number[] = [];
  try {
    for (let r = 0; r < RUNS; r++) {
      const t = performance.now();
      const result = await k.service.process({ agent: 'assistant', message: `run ${r}` });
      if (result.stopReason !== 'final') throw new Error(`run ended with ${result.stopReason}: ${result.error?.message}`);
      perStep.push((performance.now() - t) / (STEPS + 1));
    }
  } finally {
    await k.close({ keep: true });
  }
  return perStep;
}

const root = await mkdtemp(path.join(tmpdir(), 'oryx-bench-sqlite-'));
try {
  console.log(`Append cost (${APPENDS} one-message appends each, one transaction per append):`);
  await appendBench(root, 'libsql');
  await appendBench(root, 'client');

  console.log(`\nAudit overhead per loop step (${RUNS} runs × ${STEPS + 1} model calls, ${STEPS} tool calls, embedded driver):`);
  // warm-up, then alternate so machine load hits both sides alike
  await loopBench(await mkdtemp(path.join(root, 'warm-')), true);
  const plain: number[] = [];
  const audited: number[] = [];
  for (let i = 0; i < 3; i++) {
    plain.push(...await loopBench(await mkdtemp(path.join(root, 'plain-')), false));
    audited.push(...await loopBench(await mkdtemp(path.join(root, 'audit-')), true));
  }
  const p = stats(plain);
  const a = stats(audited);
  console.log(`  sqlite only     : median ${us(p.median)} per step (mean ${us(p.mean)})`);
  console.log(`  sqlite + audit  : median ${us(a.median)} per step (mean ${us(a.mean)})`);
  console.log(`  audit overhead  : ${us(a.median - p.median)} per step (median difference; 1 llm_calls + 1 tool_invocations row)`);
} finally {
  await rm(root, { recursive: true, force: true });
}
