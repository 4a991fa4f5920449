import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, mkdir, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import { FileMemoryStore, isoDate } from '../src/file-store.ts';
import { archiveFiles } from '../src/rotate.ts';
import { parseMemory } from '../src/format.ts';

const SAVER = path.join(import.meta.dirname, 'fixtures', 'saver.ts');
const workspaces: string[] = [];
const children = new Set<ChildProcess>();

async function workspace(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-memory-'));
  workspaces.push(dir);
  return dir;
}

async function rejects(p: Promise<unknown>, code: string): Promise<void> {
  try {
    await p;
  } catch (error) {
    assert.ok(isOryxError(error), `expected an OryxError, got ${String(error)}`);
    assert.is((error as { code: string }).code, code);
    return;
  }
  assert.unreachable(`expected ${code}`);
}

/** A saver child process; `ready` resolves when it waits for "go", `exit` when it ends. */
function saver(ws: string, prefix: string, count: number | 'forever', padding = 0, rotateBytes?: number) {
  const args = [SAVER, ws, 'assistant', prefix, String(count), String(padding), ...(rotateBytes ? [String(rotateBytes)] : [])];
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  let err = '';
  let saved = 0;
  const waiters: (() => void)[] = [];
  child.stdout!.on('data', (d) => {
    out += d;
    saved = (out.match(/^saved /gm) ?? []).length;
    for (const w of waiters.splice(0)) w();
  });
  child.stderr!.on('data', (d) => { err += d; });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string }>((resolve) =>
    child.on('exit', (code, signal) => { children.delete(child); resolve({ code, signal, err }); }));
  const until = (pred: () => boolean) => new Promise<void>((resolve, reject) => {
    const check = () => (pred() ? resolve() : child.exitCode !== null ? reject(new Error(`saver exited: ${err}`)) : waiters.push(check));
    check();
  });
  return {
    child, exit,
    ready: until(() => out.includes('ready')),
    go: () => child.stdin!.write('go\n'),
    savedAtLeast: (n: number) => until(() => saved >= n),
    saved: () => saved,
  };
}

test.after.each(async () => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  for (const dir of workspaces.splice(0)) await rm(dir, { recursive: true, force: true });
});

test('the first save creates the shared MEMORY.md with both headings; read returns dated entries', async () => {
  const ws = await workspace();
  const store = new FileMemoryStore({ workspaceDir: ws, now: () => new Date(2025, 0, 2, 12) });
  const entry = await store.save('assistant', '  The user is Ana.\r\nShe lives in Lyon.  ');
  assert.equal(entry, { date: '2025-01-02', text: 'The user is Ana.\nShe lives in Lyon.' });
  const file = path.join(ws, 'memory', 'MEMORY.md');
  assert.is(await readFile(file, 'utf8'), '# Memory\n\n## Core\n\n## Archive\n\n- 2025-01-02: The user is Ana.\n  She lives in Lyon.\n');
  assert.equal(await store.read('assistant'), { path: file, scope: 'agent', core: [], archive: [entry] });
  assert.match(isoDate(), /^\d{4}-\d{2}-\d{2}$/);
});

test('the per-agent file wins over the shared one, for reads and saves', async () => {
  const ws = await workspace();
  const shared = path.join(ws, 'memory', 'MEMORY.md');
  const own = path.join(ws, 'agents', 'a', 'MEMORY.md');
  await mkdir(path.dirname(shared), { recursive: true });
  await mkdir(path.dirname(own), { recursive: true });
  await writeFile(shared, '## Core\n- 2025-01-01: SHARED-FACT\n');
  await writeFile(own, '## Core\n- 2025-01-01: AGENT-FACT\n');
  const store = new FileMemoryStore({ workspaceDir: ws });
  const a = await store.read('a');
  assert.is(a.path, own);
  assert.equal(a.core.map((e) => e.text), ['AGENT-FACT']);
  const b = await store.read('b');
  assert.is(b.path, shared);
  assert.equal(b.core.map((e) => e.text), ['SHARED-FACT']);
  await store.save('a', 'only for a');
  assert.match(await readFile(own, 'utf8'), 'only for a');
  assert.not.match(await readFile(shared, 'utf8'), 'only for a');
});

test('a save keeps hand-written prose, comments and line endings', async () => {
  const ws = await workspace();
  const file = path.join(ws, 'memory', 'MEMORY.md');
  await mkdir(path.dirname(file), { recursive: true });
  const hand = '# Our memory\r\n\r\nWritten by hand.\r\n<!-- keep me -->\r\n\r\n## Archive\r\n- 2024-01-01: old\r\n\r\n## Notes\r\nfree text\r\n';
  await writeFile(file, hand);
  const store = new FileMemoryStore({ workspaceDir: ws, now: () => new Date(2025, 0, 2) });
  await store.save('assistant', 'new');
  assert.is(await readFile(file, 'utf8'), hand.replace('- 2024-01-01: old\r\n', '- 2024-01-01: old\r\n- 2025-01-02: new\r\n'));
});

test('Core has a cap: past it the save fails with ORYX_E_MEMORY_CORE_FULL and changes nothing', async () => {
  const ws = await workspace();
  const store = new FileMemoryStore({ workspaceDir: ws, coreMaxChars: 60 });
  await store.save('assistant', 'short core fact', 'core');
  const before = await readFile(path.join(ws, 'memory', 'MEMORY.md'), 'utf8');
  await rejects(store.save('assistant', 'a core fact that is far too long to fit under the cap', 'core'), 'ORYX_E_MEMORY_CORE_FULL');
  assert.is(await readFile(path.join(ws, 'memory', 'MEMORY.md'), 'utf8'), before);
  await store.save('assistant', 'a core fact that is far too long to fit under the cap', 'archive');
  assert.is((await store.read('assistant')).archive.length, 1);
});

test('saving the same text twice to a zone writes it once', async () => {
  const ws = await workspace();
  const store = new FileMemoryStore({ workspaceDir: ws });
  const first = await store.saveEntry('assistant', 'Prefers tea');
  const second = await store.saveEntry('assistant', ' Prefers   tea ');
  assert.is(first.duplicate, false);
  assert.is(second.duplicate, true);
  assert.is((await store.read('assistant')).archive.length, 1);
});

test('bad input is refused with stable codes', async () => {
  const ws = await workspace();
  const store = new FileMemoryStore({ workspaceDir: ws });
  await rejects(store.read('../etc'), 'ORYX_E_MEMORY_AGENT_INVALID');
  await rejects(store.save('assistant', '  \n '), 'ORYX_E_MEMORY_TEXT_INVALID');
  await rejects(store.save('assistant', 'x', 'attic' as 'core'), 'ORYX_E_MEMORY_ZONE_INVALID');
});

test('a save that the file would hide (an unclosed comment) fails instead of vanishing', async () => {
  const ws = await workspace();
  const file = path.join(ws, 'memory', 'MEMORY.md');
  await mkdir(path.dirname(file), { recursive: true });
  const hand = '## Core\n- 2025-01-01: kept\n\n## Archive\n- 2025-01-02: a\n<!-- started a comment and never closed it\n';
  await writeFile(file, hand);
  const store = new FileMemoryStore({ workspaceDir: ws });
  await rejects(store.save('assistant', 'lost?'), 'ORYX_E_MEMORY_FILE_INVALID');
  assert.is(await readFile(file, 'utf8'), hand);
  await store.save('assistant', 'core still works', 'core');
  assert.equal((await store.read('assistant')).core.map((e) => e.text), ['kept', 'core still works']);
});

test('an unreadable or unwritable location fails with ORYX_E_MEMORY_IO', async () => {
  const ws = await workspace();
  await writeFile(path.join(ws, 'memory'), 'a file where the folder should be');
  const store = new FileMemoryStore({ workspaceDir: ws });
  await rejects(store.save('assistant', 'x'), 'ORYX_E_MEMORY_IO');
  const ws2 = await workspace();
  await mkdir(path.join(ws2, 'memory', 'MEMORY.md'), { recursive: true });
  await rejects(new FileMemoryStore({ workspaceDir: ws2 }).read('assistant'), 'ORYX_E_MEMORY_IO');
});

test('50 concurrent saves in one process lose nothing (one store, and two stores on one file)', async () => {
  const ws = await workspace();
  const one = new FileMemoryStore({ workspaceDir: ws });
  await Promise.all(Array.from({ length: 50 }, (_, i) => one.save('assistant', `fact ${i}`)));
  const texts = (await one.read('assistant')).archive.map((e) => e.text);
  assert.is(texts.length, 50);
  assert.is(new Set(texts).size, 50);

  const ws2 = await workspace();
  const a = new FileMemoryStore({ workspaceDir: ws2 });
  const b = new FileMemoryStore({ workspaceDir: ws2 });
  await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).save('assistant', `fact ${i}`, i % 5 ? 'archive' : 'core')));
  const zones = await a.read('assistant');
  assert.is(zones.archive.length + zones.core.length, 50);
  assert.is(zones.core.length, 10);
});

test('two processes saving at once lose nothing', async () => {
  const ws = await workspace();
  const p1 = saver(ws, 'one', 30, 200);
  const p2 = saver(ws, 'two', 30, 200);
  await Promise.all([p1.ready, p2.ready]);
  p1.go();
  p2.go();
  const [e1, e2] = await Promise.all([p1.exit, p2.exit]);
  assert.is(e1.code, 0, e1.err);
  assert.is(e2.code, 0, e2.err);
  const { archive } = await new FileMemoryStore({ workspaceDir: ws }).read('assistant');
  const texts = archive.map((e) => e.text);
  assert.is(texts.length, 60);
  for (const prefix of ['one', 'two']) {
    for (let i = 0; i < 30; i++) assert.ok(texts.includes(`${prefix}-${i} ${'x'.repeat(200)} end`), `${prefix}-${i} missing`);
  }
  assert.equal((await readdir(path.join(ws, 'memory'))).sort(), ['MEMORY.md']);
});

test('a writer killed mid-save leaves the old or the new file, never a broken one; the next save recovers', async () => {
  const ws = await workspace();
  const file = path.join(ws, 'memory', 'MEMORY.md');
  const entry = /^crash\d+-\d+ x{20000} end$/;
  const problems: string[] = [];
  const check = (text: string, when: string): number => {
    const parsed = parseMemory(text);
    if (!text.startsWith('# Memory\n\n## Core\n\n## Archive\n\n')) problems.push(`${when}: header broken`);
    if (!text.endsWith(' end\n')) problems.push(`${when}: does not end with a complete entry`);
    for (const e of parsed.archive) if (!entry.test(e.text)) problems.push(`${when}: incomplete entry ${e.text.slice(0, 30)}…${e.text.slice(-10)}`);
    return parsed.archive.length;
  };
  let previous = 0;
  let reads = 0;
  // Started together (each waits for "go"), so the rounds do not pay for process start-up one by one.
  const savers = Array.from({ length: 4 }, (_, round) => saver(ws, `crash${round}`, 'forever', 20000));
  await Promise.all(savers.map((p) => p.ready));
  for (const [round, p] of savers.entries()) {
    p.go();
    // A reader racing the writer must also only ever see whole files.
    let stop = false;
    const reader = (async () => {
      while (!stop) {
        const text = await readFile(file, 'utf8').catch(() => undefined);
        if (text !== undefined) { check(text, `round ${round} read ${reads}`); reads++; }
      }
    })();
    await p.savedAtLeast(2 + round);
    await new Promise((r) => setTimeout(r, 3 + round * 7));
    p.child.kill('SIGKILL');
    const { signal } = await p.exit;
    stop = true;
    await reader;
    assert.is(signal, 'SIGKILL');
    const count = check(await readFile(file, 'utf8'), `round ${round} after the kill`);
    assert.ok(count >= previous + 2, `round ${round}: nothing lost (${count} after ${previous})`);
    previous = count;
  }
  assert.equal(problems.slice(0, 5), []);
  assert.ok(reads > 0);
  // Whatever the kill left (a lock of a dead process, a temp file), the next save goes through.
  const store = new FileMemoryStore({ workspaceDir: ws, lockTimeoutMs: 2000, rotateBytes: 2 ** 40 });
  await store.save('assistant', 'after the crashes');
  assert.is((await store.read('assistant')).archive.at(-1)!.text, 'after the crashes');
  assert.equal((await readdir(path.join(ws, 'memory'))).filter((n) => n !== 'MEMORY.md'), []);
});

test('a writer killed while rotating loses nothing: every acknowledged entry is in MEMORY.md or an archive file', async () => {
  const ws = await workspace();
  const file = path.join(ws, 'memory', 'MEMORY.md');
  const pad = 'x'.repeat(3000);
  const everything = async () => {
    const texts: string[] = [];
    for (const f of [...await archiveFiles(file), file]) {
      const text = await readFile(f, 'utf8');
      assert.ok(text.endsWith(' end\n'), `${path.basename(f)} is whole`);
      texts.push(...parseMemory(text).archive.map((e) => e.text));
    }
    return new Set(texts);
  };
  const savers = Array.from({ length: 3 }, (_, round) => saver(ws, `rot${round}`, 'forever', 3000, 16384));
  await Promise.all(savers.map((p) => p.ready));
  for (const [round, p] of savers.entries()) {
    p.go();
    await p.savedAtLeast(8 + 3 * round);
    await new Promise((r) => setTimeout(r, 2 + round * 5));
    p.child.kill('SIGKILL');
    await p.exit;
    const found = await everything();
    for (let i = 0; i < p.saved(); i++) assert.ok(found.has(`rot${round}-${i} ${pad} end`), `round ${round}: entry ${i} lost`);
  }
  assert.ok((await archiveFiles(file)).length >= 3, 'the savers rotated');
  const store = new FileMemoryStore({ workspaceDir: ws, lockTimeoutMs: 2000, rotateBytes: 16384 });
  await store.save('assistant', 'after the kills');
  assert.is((await store.read('assistant')).archive.at(-1)!.text, 'after the kills');
});

test('locks: a dead owner is recovered, a live one makes the save wait and time out, an old one is taken over', async () => {
  const ws = await workspace();
  const dir = path.join(ws, 'memory');
  const lock = path.join(dir, 'MEMORY.md.lock');
  await mkdir(dir, { recursive: true });
  const dead = spawn(process.execPath, ['-e', '']);
  const deadPid = dead.pid!;
  await new Promise((r) => dead.on('exit', r));

  await writeFile(lock, JSON.stringify({ pid: deadPid, host: hostname(), token: 'dead', at: Date.now() }));
  const store = new FileMemoryStore({ workspaceDir: ws, lockTimeoutMs: 300, staleLockMs: 60_000 });
  await store.save('assistant', 'after a dead owner');

  await writeFile(lock, JSON.stringify({ pid: process.pid, host: hostname(), token: 'someone-else', at: Date.now() }));
  await rejects(store.save('assistant', 'blocked'), 'ORYX_E_MEMORY_LOCKED');
  assert.is(JSON.parse(await readFile(lock, 'utf8')).token, 'someone-else', 'a live lock is left alone');
  assert.not.match(await readFile(path.join(dir, 'MEMORY.md'), 'utf8'), 'blocked');

  const old = new Date(Date.now() - 120_000);
  await utimes(lock, old, old);
  await store.save('assistant', 'after an old lock');
  const texts = (await store.read('assistant')).archive.map((e) => e.text);
  assert.equal(texts, ['after a dead owner', 'after an old lock']);
  assert.equal((await readdir(dir)).sort(), ['MEMORY.md']);
});

test.run();
