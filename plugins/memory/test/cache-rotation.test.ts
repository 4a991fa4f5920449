// The parse cache (one stat per read, hand edits still seen) and the rotation of the Archive
// into dated files that recall still searches.
import { mkdtemp, readFile, readdir, rm, stat, utimes, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ARCHIVE_DIR, FileMemoryStore, archiveFiles, parseMemory } from '../src/store.ts';

let ws = '';
test.before.each(async () => { ws = await mkdtemp(path.join(tmpdir(), 'oryx-memory-cache-')); });
test.after.each(async () => { await rm(ws, { recursive: true, force: true }); });

const shared = () => path.join(ws, 'memory', 'MEMORY.md');
async function write(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}
const settle = async (file: string) => {
  const old = new Date(Date.now() - 60_000);
  await utimes(file, old, old);
};

test('an unchanged file is parsed once; a hand edit, even one that keeps the size, is seen at the next read', async () => {
  const store = new FileMemoryStore({ workspaceDir: ws });
  await write(shared(), '## Core\n- 2025-01-01: tea\n');
  await settle(shared());
  const first = await store.load('assistant');
  assert.is(await store.load('assistant'), first, 'same version: the cached parse is reused');
  assert.equal(first.parsed.core.map((e) => e.text), ['tea']);

  await writeFile(shared(), '## Core\n- 2025-01-01: tee\n'); // same size, at once
  assert.equal((await store.read('assistant')).core.map((e) => e.text), ['tee']);
  await writeFile(shared(), '## Core\n- 2025-01-01: tea\n- 2025-01-02: coffee\n');
  assert.equal((await store.read('assistant')).core.map((e) => e.text), ['tea', 'coffee']);
  await rm(shared());
  assert.equal((await store.read('assistant')).core, []);
});

test('past rotateBytes the oldest Archive entries move to dated archive files; Core stays; nothing is lost', async () => {
  const store = new FileMemoryStore({ workspaceDir: ws, rotateBytes: 4096, now: () => new Date(2026, 10, 30, 12) });
  await store.save('assistant', 'CORE: the user is Ana', 'core');
  const texts = Array.from({ length: 150 }, (_, i) => `fact number ${i} about the ${i % 3 ? 'staging' : 'production'} database ${'x'.repeat(40)}`);
  for (const text of texts) {
    await store.save('assistant', text);
    assert.ok((await stat(shared())).size <= 4096, 'MEMORY.md stays within rotateBytes');
  }
  const files = await archiveFiles(shared());
  assert.ok(files.length >= 2, `${files.length} archive files`);
  assert.equal(files.map((f) => path.basename(f)).slice(0, 2), ['2026-11-30.md', '2026-11-30.2.md']);
  assert.is(path.basename(path.dirname(files[0]!)), ARCHIVE_DIR);
  const main = parseMemory(await readFile(shared(), 'utf8'));
  assert.equal(main.core.map((e) => e.text), ['CORE: the user is Ana']);
  const rotated = (await Promise.all(files.map(async (f) => parseMemory(await readFile(f, 'utf8')).archive))).flat();
  assert.equal([...rotated, ...main.archive].map((e) => e.text), texts, 'every entry once, in order');
  assert.match(await readFile(files[0]!, 'utf8'), 'recall_memory searches this file');

  const hits = await store.recall('assistant', 'fact number 0 production', 1);
  assert.equal(hits.map((h) => h.text), [texts[0]]);
  assert.ok(rotated.some((e) => e.text === texts[0]), 'the hit came from a rotated file');
});

test('a checkpoint rotated out of the session file is never written again', async () => {
  const store = new FileMemoryStore({ workspaceDir: ws, rotateBytes: 4096 });
  const item = (n: number) => ({ key: `(session s1 #${n})`, text: `Earlier conversation: the user asked "${n} ${'q'.repeat(200)}"; the answer was "ok" (session s1 #${n})` });
  for (let n = 1; n <= 40; n++) await store.checkpoint('s1', [item(n)]);
  const file = path.join(store.sessionDir('s1'), 'MEMORY.md');
  assert.ok(!(await readFile(file, 'utf8')).includes('(session s1 #1)'), 'the first key was rotated out');
  assert.equal(await store.checkpoint('s1', [item(1), item(2), item(40)]), { path: file, written: 0 });
  assert.is((await store.checkpoint('s1', [item(41)])).written, 1);
  assert.equal((await readdir(store.sessionDir('s1'))).sort(), ['MEMORY.md', ARCHIVE_DIR, 'session.json']);
  assert.equal(JSON.parse(await readFile(path.join(store.sessionDir('s1'), 'session.json'), 'utf8')), { session: 's1' });
});

test('a checkpoint is appended in place only when the file ends in its Archive; a hand-rearranged file is rewritten', async () => {
  const store = new FileMemoryStore({ workspaceDir: ws });
  const item = (n: number) => ({ key: `(session s2 #${n})`, text: `Earlier conversation: turn ${n} (session s2 #${n})` });
  await store.checkpoint('s2', [item(1)]);
  const file = path.join(store.sessionDir('s2'), 'MEMORY.md');
  const inode = (await stat(file)).ino;
  await store.checkpoint('s2', [item(2)]);
  assert.is((await stat(file)).ino, inode, 'appended: the same file');
  assert.equal(parseMemory(await readFile(file, 'utf8')).archive.map((e) => e.text), [item(1).text, item(2).text]);

  // Someone puts Core last: an append would land in Core, so the file is rewritten instead.
  await writeFile(file, `# Memory\n\n## Archive\n\n- 2026-01-01: ${item(1).text}\n\n## Core\n\n- 2026-01-01: a core fact\n`);
  await settle(file);
  await store.checkpoint('s2', [item(3)]);
  const after = parseMemory(await readFile(file, 'utf8'));
  assert.equal(after.archive.map((e) => e.text), [item(1).text, item(3).text]);
  assert.equal(after.core.map((e) => e.text), ['a core fact']);
  assert.is.not((await stat(file)).ino, inode, 'rewritten');
});

test.run();
