// The PostgreSQL store next to the SQLite store: the cost per ReAct step (the same harness as
// bench/sqlite.ts: scripted multi-step runs, one tool call per step; the store alone, then with
// audit), and the
// append and history(20) costs. Needs the test server (ORYX_TEST_PG_URL, as .ci/run sets up).
//
// Run from the repository root, after building:
//   node --import tsx bench/postgres.ts
// Optional: BENCH_APPENDS=1000 BENCH_RUNS=10 BENCH_STEPS=50.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Message } from '@oryxos/provider-spec';
import type { Plugin, Tool } from '@oryxos/kernel';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import audit from '@oryxos/plugin-audit';
import postgres, { MIGRATIONS, migrate, openPostgres } from '@oryxos/plugin-postgres';
import sqlite, { enableWal, migrate as migrateSqlite, openDatabase } from '@oryxos/plugin-sqlite';
import { SqlSessionStore } from '@oryxos/sql-store';
import { freshDatabase } from '../plugins/postgres/test/pg.ts';

const APPENDS = Number(process.env.BENCH_APPENDS ?? 1000);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const STEPS = Number(process.env.BENCH_STEPS ?? 50);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;
const us = (ms: number) => `${(ms * 1000).toFixed(0).padStart(6)} µs`;

const noop: Tool = {
  name: 'noop', description: 'does nothing', source: 'plugin',
  inputSchema: { type: 'object', properties: { i: { type: 'number' } } },
  async execute(args) { return `ok ${args.i}`; },
};
const tools: Plugin = { name: 'bench-tools', version: '1.0.0', kernel: '^1', setup(k) { k.registerTool(noop); } };

/** Per-step wall time of RUNS runs of STEPS tool steps each, with `store` (and audit). */
async function loopBench(store: () => Plugin, withAudit: boolean): Promise<number[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-bench-pg-'));
  const script = Array.from({ length: RUNS }, () => [
    ...Array.from({ length: STEPS }, (_, i) => ({ toolCalls: [{ name: 'noop', args: { i } }] })),
    { text: 'done' },
  ]).flat();
  const k = await testKernel({ plugins: [scripted(script), tools, store(), ...(withAudit ? [audit()] : [])], dir, agents: { assistant: { tools: ['*'], settings: { max_iterations: STEPS + 5 } } } });
  const perStep: number[] = [];
  try {
    for (let r = 0; r < RUNS; r++) {
      const t = performance.now();
      const result = await k.service.process({ agent: 'assistant', message: `run ${r}` });
      if (result.stopReason !== 'final') throw new Error(`run ended with ${result.stopReason}: ${result.error?.message}`);
      perStep.push((performance.now() - t) / (STEPS + 1));
    }
  } finally {
    await k.close();
    await rm(dir, { recursive: true, force: true });
  }
  return perStep;
}

/** Append and history(20) costs at 10 and 10,000 messages. */
async function appendBench(name: string, store: SqlSessionStore): Promise<void> {
  const message = (i: number): Message => (i % 2 ? { role: 'assistant', content: `answer ${i} `.repeat(20) } : { role: 'user', content: `question ${i} `.repeat(10) });
  for (const size of [10, 10_000]) {
    const { id } = await store.create({ agent: 'bench' });
    for (let i = 0; i < size; i += 100) await store.append(id, Array.from({ length: Math.min(100, size - i) }, (_, j) => message(i + j)));
    const appends: number[] = [];
    for (let i = 0; i < APPENDS; i++) {
      const t = performance.now();
      await store.append(id, [message(size + i)]);
      appends.push(performance.now() - t);
    }
    const history: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      await store.history(id, 20);
      history.push(performance.now() - t);
    }
    console.log(`  ${name.padEnd(8)} at ${String(size).padStart(6)} messages: append median ${us(median(appends))}  p95 ${us(p95(appends))} | history(20) median ${us(median(history))}`);
  }
}

const database = await freshDatabase('oryx_bench');
try {
  console.log(`Append cost (${APPENDS} one-message appends each, one transaction per append):`);
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-bench-pg-'));
  const lite = await openDatabase({ kind: 'file', path: path.join(dir, 'a.db') }, { driver: 'libsql', busyTimeoutMs: 5000 });
  await enableWal(lite);
  await migrateSqlite(lite);
  await appendBench('sqlite', new SqlSessionStore(() => lite));
  await lite.close();
  await rm(dir, { recursive: true, force: true });
  const pg = await openPostgres({ url: database.url, poolSize: 4, statementTimeoutMs: 30_000, connectTimeoutMs: 5000, applicationName: 'bench' });
  await migrate(pg, MIGRATIONS, 'postgres');
  await appendBench('postgres', new SqlSessionStore(() => pg, { name: 'postgres' }));
  await pg.close();

  const stores = { sqlite: () => sqlite(), postgres: () => postgres({ url: database.url, poolSize: 4 }) };
  for (const withAudit of [false, true]) {
    console.log(`\nPer loop step, store${withAudit ? ' + audit' : ' alone'} (${RUNS} runs × ${STEPS + 1} model calls, ${STEPS} tool calls; interleaved rounds):`);
    await loopBench(stores.sqlite, withAudit);
    await loopBench(stores.postgres, withAudit);
    const samples = { sqlite: [] as number[], postgres: [] as number[] };
    for (let round = 0; round < 3; round++) {
      for (const name of (round % 2 ? ['postgres', 'sqlite'] : ['sqlite', 'postgres']) as (keyof typeof stores)[]) samples[name].push(...await loopBench(stores[name], withAudit));
    }
    console.log(`  sqlite   : median ${us(median(samples.sqlite))} per step`);
    console.log(`  postgres : median ${us(median(samples.postgres))} per step (${us(median(samples.postgres) - median(samples.sqlite)).trim()} more)`);
  }
} finally {
  await database.drop();
}
