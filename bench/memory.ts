// Benchmarks of @oryxos/plugin-memory. Run: npx tsx bench/memory.ts
// Numbers vary with the machine and its disk (every save fsyncs twice); compare runs on one machine.
//
// - prompt build: the plugin's prepareStep tap (scope, migration check, the run's agent, user
//   and session files, the section) with a 10-entry and a 100,000-entry agent archive, the
//   latter rotated as saves leave it (a 256 KiB MEMORY.md and dated archive files). Goal:
//   the second within 1.2x of the first.
// - the first build after a change (a parse), recall over the rotated archive (first call
//   builds the index, later ones use it), parse and rank alone, saves and checkpoints.
import { spawn } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Prompt, RunContext } from '@oryxos/kernel';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import memory from '../plugins/memory/src/index.ts';
import { FileMemoryStore, archiveFiles, parseMemory, rank } from '../plugins/memory/src/store.ts';

const ws = await mkdtemp(path.join(tmpdir(), 'oryx-memory-bench-'));
const results: Record<string, string> = {};
const perOp = new Map<string, number>();
const time = async (label: string, runs: number, fn: (i: number) => unknown, unit = 'op') => {
  await fn(0);
  const start = performance.now();
  for (let i = 0; i < runs; i++) await fn(i);
  const ms = (performance.now() - start) / runs;
  perOp.set(label, ms);
  results[label] = `${ms.toFixed(3)} ms/${unit}  (${Math.round(1000 / ms).toLocaleString('en-US')}/s)`;
};

const words = 'deploy staging server database user prefers tea coffee meeting release migration friday lyon shanghai report'.split(' ');
const zh = ['用户喜欢喝绿茶', '服务器部署在上海', '周五发布新版本', '数据库迁移完成', '客户要求提前交付'];
const entry = (i: number) => `- 2025-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}: `
  + (i % 5 === 0 ? `${zh[i % zh.length]} 第${i}条` : Array.from({ length: 12 }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' ') + ` #${i}`);
const memoryFile = (n: number) => `# Memory\n\n## Core\n- 2025-01-01: The user is Ana.\n\n## Archive\n${Array.from({ length: n }, (_, i) => entry(i)).join('\n')}\n`;

try {
  // Prompt build through the plugin, 10 entries and 100,000.
  const builds: { n: number; build: () => Promise<Prompt>; close: () => Promise<void>; store: FileMemoryStore }[] = [];
  for (const n of [10, 100_000]) {
    const t = await testKernel({ plugins: [scripted([]), memory()], agents: { assistant: { tools: ['recall_memory', 'save_memory'] } } });
    const store = t.kernel.service('memory') as FileMemoryStore;
    const file = await store.fileOf('assistant');
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, memoryFile(n));
    await store.save('assistant', 'one save, which rotates a file past rotateBytes'); // as saves leave it
    await store.save('assistant', 'Ana prefers tea', 'core', { scope: 'user', user: 'ana' });
    await store.checkpoint('session-1', [{ key: '(session session-1 #1)', text: 'Earlier conversation: the user asked "hi"; the answer was "hello" (session session-1 #1)' }]);
    const agent = await t.kernel.agents.load('assistant');
    const run: RunContext = { runId: 'r', agent, sessionId: 'session-1', provider: 'scripted', model: 'm', iteration: 1, signal: new AbortController().signal, user: 'ana', startedAt: new Date().toISOString() };
    const prompt = (): Prompt => ({ system: [], memory: [], history: [], tools: [], report: { injected: [], cut: [], estimatedTokens: 0 } });
    // A new run id per build: memory is read once per run (later steps reuse what the first read).
    const build = () => t.kernel.hooks.prepareStep.promise(prompt(), { ...run, runId: crypto.randomUUID() });
    const section = (await build()).memory[0]!.content;
    const rotated = (await archiveFiles(file)).length;
    results[`agent archive of ${n.toLocaleString('en-US')} entries`] = `MEMORY.md ${((await readFile(file)).length / 1024).toFixed(0)} KiB + ${rotated} rotated files; section ${section.length} chars`;
    builds.push({ n, build, close: () => t.close(), store });
  }
  // Interleaved, best of 5 rounds each: the machine's load moves between rounds.
  const best = new Map<number, number>();
  for (let round = 0; round < 5; round++) {
    for (const b of round % 2 ? [...builds].reverse() : builds) {
      await time('tmp', 2000, () => b.build());
      best.set(b.n, Math.min(best.get(b.n) ?? Infinity, perOp.get('tmp')!));
    }
  }
  delete results.tmp;
  for (const [n, ms] of best) results[`prompt build (prepareStep), ${n.toLocaleString('en-US')} entries`] = `${(ms * 1000).toFixed(1)} µs/build`;
  results['prompt build ratio, 100,000 / 10'] = `${(best.get(100_000)! / best.get(10)!).toFixed(2)} (goal <= 1.20)`;

  const large = builds[1]!;
  await time('recall over 100,000 entries, later calls (English)', 50, () => large.store.recall('assistant', 'staging database migration', 5, { user: 'ana' }));
  await time('recall over 100,000 entries, later calls (Chinese)', 50, () => large.store.recall('assistant', '用户喜欢', 5, { user: 'ana' }));
  const fresh = new FileMemoryStore({ workspaceDir: large.store.workspaceDir });
  const start = performance.now();
  await fresh.recall('assistant', 'staging database migration', 5);
  results['recall over 100,000 entries, first call (indexes every file)'] = `${(performance.now() - start).toFixed(0)} ms`;
  for (const b of builds) await b.close();

  // A hand-written file of 100,000 entries, never rotated (no save yet): parsed once, then cached.
  const hand = path.join(ws, 'hand', 'memory', 'MEMORY.md');
  await mkdir(path.dirname(hand), { recursive: true });
  const handText = memoryFile(100_000);
  await writeFile(hand, handText);
  const handStore = new FileMemoryStore({ workspaceDir: path.join(ws, 'hand') });
  let t0 = performance.now();
  await handStore.sources('assistant');
  // A file changed in the last two seconds has its text compared on every read (see the cache).
  await new Promise((r) => setTimeout(r, 2100));
  results['unrotated 100,000-entry file (13 MB): first read + parse'] = `${(performance.now() - t0).toFixed(0)} ms`;
  await time('unrotated 100,000-entry file: later reads (cached)', 200, () => handStore.sources('assistant'));
  const tenThousand = memoryFile(10_000);
  await time('parse only, 10,000 entries', 20, () => parseMemory(tenThousand));
  const docs = parseMemory(tenThousand).archive.map((e) => e.text);
  await time('rank only (no index), 10,000 entries', 20, () => rank(docs, 'staging database migration'));

  const saveDir = path.join(ws, 'saves');
  const store = new FileMemoryStore({ workspaceDir: saveDir });
  await time('save, sequential (small file)', 100, (i) => store.save('assistant', `sequential fact ${i}`), 'save');
  await time('checkpoint, sequential (append, no fsync)', 300, (i) => store.checkpoint('s1', [{ key: `(session s1 #${i + 10})`, text: `Earlier conversation: turn ${i} (session s1 #${i + 10})` }]), 'checkpoint');
  t0 = performance.now();
  await Promise.all(Array.from({ length: 100 }, (_, i) => store.save('assistant', `concurrent fact ${i}`)));
  results['save, 100 concurrent in one process'] = `${(performance.now() - t0).toFixed(0)} ms total`;

  const saver = path.join(import.meta.dirname, '..', 'plugins', 'memory', 'test', 'fixtures', 'saver.ts');
  const children = [0, 1].map((k) => spawn(process.execPath, ['--import', 'tsx', saver, saveDir, 'assistant', `proc${k}`, '100', '0'], { stdio: ['pipe', 'pipe', 'inherit'] }));
  await Promise.all(children.map((c) => new Promise<void>((r) => { let out = ''; c.stdout.on('data', (d) => { out += d; if (out.includes('ready')) r(); }); })));
  const procStart = performance.now();
  for (const c of children) c.stdin.write('go\n');
  await Promise.all(children.map((c) => new Promise((r) => c.on('exit', r))));
  const total = parseMemory(await readFile(path.join(saveDir, 'memory', 'MEMORY.md'), 'utf8')).archive.length;
  results['save, 2 processes x 100 at once'] = `${(performance.now() - procStart).toFixed(0)} ms total, ${total} entries in the file (expected 400)`;
} finally {
  await rm(ws, { recursive: true, force: true });
}
for (const [k, v] of Object.entries(results)) console.log(`${k.padEnd(62)} ${v}`);
