// The agent-file cache: trusted for a short while, then re-checked by mtime and size; an edit
// to AGENT.md still reaches the next run once that while has passed (hot reload).
import { mkdir, mkdtemp, rm, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FileCache, RECHECK_MS } from '@oryxos/kernel/internal';
import { scripted, testKernel } from '@oryxos/kernel/testing';

const withDir = async (fn: (dir: string) => Promise<void>) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-file-cache-'));
  try { await fn(dir); } finally { await rm(dir, { recursive: true, force: true }); }
};

test('inside the recheck interval the cached text is used as it is, even after an edit', () => withDir(async (dir) => {
  const file = path.join(dir, 'AGENT.md');
  await writeFile(file, 'one');
  const cache = new FileCache(60_000);
  assert.is(await cache.text(file), 'one');
  await writeFile(file, 'two, longer');
  assert.is(await cache.text(file), 'one', 'not checked again yet');
}));

test('once the interval is over: a change of size or mtime is read again; same mtime and size is not', () => withDir(async (dir) => {
  const file = path.join(dir, 'AGENT.md');
  const cache = new FileCache(0);
  assert.is(await cache.text(file), undefined, 'missing');
  await writeFile(file, 'aa');
  assert.is(await cache.text(file), 'aa', 'created');
  await writeFile(file, 'bbb');
  assert.is(await cache.text(file), 'bbb', 'a new size');
  const before = await stat(file);
  await writeFile(file, 'ccc');
  await utimes(file, before.atime, new Date(before.mtimeMs + 5_000));
  assert.is(await cache.text(file), 'ccc', 'a new mtime, same size');
  const now = await stat(file);
  await writeFile(file, 'ddd');
  await utimes(file, now.atime, now.mtime);
  assert.is(await cache.text(file), 'ccc', 'same mtime and size: only stat, not read again');
  await unlink(file);
  assert.is(await cache.text(file), undefined, 'deleted');
  assert.equal(await cache.entries(dir), []);
  await writeFile(path.join(dir, 'x.md'), 'x');
  assert.equal(await cache.entries(dir), [{ name: 'x.md', dir: false }], 'a folder\'s entries follow its mtime');
}));

test('concurrent callers that find a file stale share one check (one stat, one read) and all get the new text', () => withDir(async (dir) => {
  const file = path.join(dir, 'AGENT.md');
  await writeFile(file, 'one');
  const cache = new FileCache(0);
  assert.is(await cache.text(file), 'one');
  await writeFile(file, 'two, longer');
  const checks = Array.from({ length: 20 }, () => cache.text(file));
  assert.is(new Set(checks).size, 1, 'one check in flight, shared by every caller');
  assert.equal(new Set(await Promise.all(checks)), new Set(['two, longer']));
  assert.is.not(cache.text(file), checks[0], 'once it is done, the next stale call checks again');
}));

test('hot reload: an edit of AGENT.md, a new skill and a new bootstrap file reach the next run once the interval is over', async () => {
  const llm = scripted([{ text: 'a' }, { text: 'b' }]);
  const t = await testKernel({ plugins: [llm], agents: { assistant: { tools: [], body: 'Version one.' } } });
  try {
    await t.service.process({ agent: 'assistant', message: 'hi' });
    assert.match(llm.requests[0]!.messages[0]!.content, 'Version one.');
    const agentDir = path.join(t.kernel.agents.agentsDir, 'assistant');
    await writeFile(path.join(agentDir, 'AGENT.md'), '---\ndescription: edited\ntools: []\n---\nVersion two, longer.\n');
    await writeFile(path.join(t.kernel.config.workspaceDir, 'SOUL.md'), 'You are calm.');
    await mkdir(path.join(agentDir, 'skills'), { recursive: true });
    await writeFile(path.join(agentDir, 'skills', 'deploy.md'), '---\ndescription: How to deploy\n---\nSteps.');
    await sleep(RECHECK_MS + 50);
    await t.service.process({ agent: 'assistant', message: 'hi' });
    const system = llm.requests[1]!.messages[0]!.content;
    assert.match(system, 'Version two, longer.');
    assert.not.match(system, 'Version one.');
    assert.match(system, 'You are calm.');
    assert.match(system, 'How to deploy');
    assert.is((await t.kernel.agents.load('assistant')).description, 'edited');
  } finally {
    await t.close();
  }
});

test('a busy agent: loads inside the interval share one definition; an edit still shows within two intervals', async () => {
  const t = await testKernel({ plugins: [scripted([])], agents: { assistant: { tools: [], description: 'one' } } });
  try {
    const first = await t.kernel.agents.load('assistant');
    assert.is(await t.kernel.agents.load('assistant'), first, 'the same definition, not built again');
    await writeFile(path.join(t.kernel.agents.agentsDir, 'assistant', 'AGENT.md'), '---\ndescription: two, edited\ntools: []\n---\nBody.\n');
    const written = performance.now();
    const loads: { startedAt: number; description: string }[] = [];
    while (performance.now() - written < 3 * RECHECK_MS) { // loads keep coming, as from a busy agent
      const startedAt = performance.now() - written;
      loads.push({ startedAt, description: (await t.kernel.agents.load('assistant')).description });
      await sleep(10);
    }
    const late = loads.filter((l) => l.startedAt > 2 * RECHECK_MS);
    assert.ok(late.length > 0, 'no load started after two intervals');
    assert.equal(late.filter((l) => l.description !== 'two, edited'), [], 'every load started two intervals after the write sees the edit');
  } finally {
    await t.close();
  }
});

test.run();
