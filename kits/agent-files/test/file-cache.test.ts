// The agent-file cache: re-checked by mtime and size on every read, so an edit to AGENT.md
// reaches the next run (hot reload) and an unchanged file is neither read nor parsed again.
import { mkdir, mkdtemp, rm, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FileCache } from '../src/file-cache.ts';
import { scripted, testKernel } from '@oryxos/kernel/testing';

const withDir = async (fn: (dir: string) => Promise<void>) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-file-cache-'));
  try { await fn(dir); } finally { await rm(dir, { recursive: true, force: true }); }
};

test('a change of size or mtime is read again; same mtime and size is not', () => withDir(async (dir) => {
  const file = path.join(dir, 'AGENT.md');
  const cache = new FileCache();
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

test('an absent file is vouched for by its folder: creating, removing or renaming one in it is seen', () => withDir(async (dir) => {
  const cache = new FileCache();
  const soul = path.join(dir, 'SOUL.md');
  const user = path.join(dir, 'USER.md');
  assert.is(await cache.text(soul), undefined);
  assert.is(await cache.text(user), undefined);
  assert.ok(cache.fresh([soul, user]), 'nothing changed in the folder');
  await writeFile(path.join(dir, 'unrelated.txt'), 'x');
  assert.not.ok(cache.fresh([soul, user]), 'the folder changed: both are looked at again');
  assert.is(await cache.text(soul), undefined);
  assert.ok(cache.fresh([soul]));
  await writeFile(path.join(dir, 'tmp'), 'calm');
  const { rename } = await import('node:fs/promises');
  await rename(path.join(dir, 'tmp'), soul);
  assert.not.ok(cache.fresh([soul]), 'created by a rename');
  assert.is(await cache.text(soul), 'calm');
  assert.is(cache.last(soul), 'calm');
  assert.not.ok(cache.fresh([path.join(dir, 'never-read.md')]), 'a path never read is not fresh');
  const gone = path.join(dir, 'no-such-folder', 'AGENTS.md');
  assert.is(await cache.text(gone), undefined, 'an absent file in an absent folder');
  assert.ok(cache.fresh([gone]));
  await mkdir(path.dirname(gone));
  await writeFile(gone, 'rules');
  assert.not.ok(cache.fresh([gone]), 'its folder appeared');
  assert.is(await cache.text(gone), 'rules');
  const tooLong = path.join(dir, 'x'.repeat(300), 'AGENT.md');
  assert.is(await cache.text(tooLong), undefined, 'a name too long for the file system is absent, not an error');
  assert.is(await cache.text(path.join(dir, 'SOUL.md', 'AGENT.md')), undefined, 'under a file (ENOTDIR): absent');
}));

test('hot reload: a new skill alone, and a project file created, reach the next run', async () => {
  const llm = scripted([{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
  const t = await testKernel({ plugins: [llm], agents: { assistant: { tools: [], body: 'Same.' } } });
  try {
    await t.service.process({ agent: 'assistant', message: 'hi' });
    const agentDir = path.join(t.kernel.agents.agentsDir, 'assistant');
    await mkdir(path.join(agentDir, 'skills'), { recursive: true });
    await writeFile(path.join(agentDir, 'skills', 'deploy.md'), '---\ndescription: How to deploy\n---\nSteps.');
    await t.service.process({ agent: 'assistant', message: 'hi' });
    assert.match(llm.requests[1]!.messages[0]!.content, 'How to deploy', 'the skill folder was created');
    await writeFile(path.join(agentDir, 'skills', 'rollback.md'), '---\ndescription: How to roll back\n---\nSteps.');
    await writeFile(path.join(agentDir, 'USER.md'), 'The user is Ada.');
    await t.service.process({ agent: 'assistant', message: 'hi' });
    const system = llm.requests[2]!.messages[0]!.content;
    assert.match(system, 'How to roll back', 'a second skill in the existing folder');
    assert.match(system, 'The user is Ada.', 'the agent\'s own USER.md');
  } finally {
    await t.close();
  }
});

test('hot reload: an edit of AGENT.md, a new skill and a new bootstrap file reach the next run', async () => {
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

test('an unchanged agent is one definition; an edit makes a new one at the next load', async () => {
  const t = await testKernel({ plugins: [scripted([])], agents: { assistant: { tools: [], description: 'one' } } });
  try {
    const first = await t.kernel.agents.load('assistant');
    assert.is(await t.kernel.agents.load('assistant'), first, 'the same definition, not built again');
    await writeFile(path.join(t.kernel.agents.agentsDir, 'assistant', 'AGENT.md'), '---\ndescription: two, edited\ntools: []\n---\nBody.\n');
    const second = await t.kernel.agents.load('assistant');
    assert.is(second.description, 'two, edited');
    assert.is.not(second, first);
  } finally {
    await t.close();
  }
});

test.run();
