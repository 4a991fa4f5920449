// Benchmarks of @oryxos/plugin-memory. Run: npx tsx bench/memory.ts
// Numbers vary with the machine and its disk (every save fsyncs twice); compare runs on one machine.
import { spawn } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FileMemoryStore, memorySection, parseMemory, rank } from '../plugins/memory/src/index.ts';

const ws = await mkdtemp(path.join(tmpdir(), 'oryx-memory-bench-'));
const results: Record<string, string> = {};
const time = async (label: string, runs: number, fn: (i: number) => unknown, unit = 'op') => {
  await fn(0);
  const start = performance.now();
  for (let i = 0; i < runs; i++) await fn(i);
  const ms = (performance.now() - start) / runs;
  results[label] = `${ms.toFixed(3)} ms/${unit}  (${Math.round(1000 / ms).toLocaleString('en-US')}/s)`;
};

try {
  const words = 'deploy staging server database user prefers tea coffee meeting release migration friday lyon shanghai report'.split(' ');
  const zh = ['用户喜欢喝绿茶', '服务器部署在上海', '周五发布新版本', '数据库迁移完成', '客户要求提前交付'];
  const entry = (i: number) => `- 2025-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}: `
    + (i % 5 === 0 ? `${zh[i % zh.length]} 第${i}条` : Array.from({ length: 12 }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' ') + ` #${i}`);
  for (const n of [1_000, 10_000]) {
    const file = path.join(ws, `n${n}`, 'memory', 'MEMORY.md');
    await mkdir(path.dirname(file), { recursive: true });
    const text = `# Memory\n\n## Core\n- 2025-01-01: The user is Ana.\n\n## Archive\n${Array.from({ length: n }, (_, i) => entry(i)).join('\n')}\n`;
    await writeFile(file, text);
    const store = new FileMemoryStore({ workspaceDir: path.dirname(path.dirname(file)) });
    results[`file with ${n.toLocaleString('en-US')} archive entries`] = `${(text.length / 1024).toFixed(0)} KiB`;
    await time(`prompt build: read + parse + section, ${n} entries`, 50, async () => {
      const z = await store.read('assistant');
      memorySection(z, { budgetChars: 4000, recallHint: true });
    });
    await time(`parse only, ${n} entries`, 50, () => parseMemory(text));
    await time(`recall (English), ${n} entries`, 20, () => store.recall('assistant', 'staging database migration'));
    await time(`recall (Chinese), ${n} entries`, 20, () => store.recall('assistant', '用户喜欢'));
    const docs = parseMemory(text).archive.map((e) => e.text);
    await time(`rank only (English), ${n} entries`, 20, () => rank(docs, 'staging database migration'));
  }

  const saveDir = path.join(ws, 'saves');
  const store = new FileMemoryStore({ workspaceDir: saveDir });
  await time('save, sequential (small file)', 100, (i) => store.save('assistant', `sequential fact ${i}`), 'save');
  const concurrentStart = performance.now();
  await Promise.all(Array.from({ length: 100 }, (_, i) => store.save('assistant', `concurrent fact ${i}`)));
  results['save, 100 concurrent in one process'] = `${(performance.now() - concurrentStart).toFixed(0)} ms total`;

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
for (const [k, v] of Object.entries(results)) console.log(`${k.padEnd(52)} ${v}`);
