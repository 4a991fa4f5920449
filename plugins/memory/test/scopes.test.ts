// Memory scopes through the kernel's loop: who sees what, where saves go, checkpoints per
// session, the migration of checkpoints out of MEMORY.md, and the sweep of deleted sessions.
import { access, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError, type ChatRequest } from '@oryxos/provider-spec';
import { scripted, testKernel, type TestKernel } from '@oryxos/kernel/testing';
import memory, { LazyMemoryStore, fileSafeName, scopeOf } from '../src/index.ts';
import { FileMemoryStore, MIGRATED_FILE, parseMemory, sweepSessions } from '../src/store.ts';
import { kernelsFor } from './helpers.ts';

const start = kernelsFor(test);

const system = (r: ChatRequest) => r.messages[0]!.content;
const toolResult = (r: ChatRequest) => r.messages.at(-1)!.content;
const storeOf = (t: TestKernel) => t.kernel.service('memory') as LazyMemoryStore;
const sharedFile = (t: TestKernel) => path.join(t.kernel.config.workspaceDir, 'memory', 'MEMORY.md');
const exists = (file: string) => access(file).then(() => true, () => false);
async function write(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

test('the scope: AGENT.md memory: { scope } wins; else user when the run names a user, agent when not; a typo is an error', () => {
  const agent = (memory?: unknown) => ({ name: 'a', file: '/w/agents/a/AGENT.md', extra: memory === undefined ? {} : { memory } });
  assert.is(scopeOf(agent(), 'ana'), 'user');
  assert.is(scopeOf(agent(), undefined), 'agent');
  assert.is(scopeOf(agent({ scope: 'session' }), 'ana'), 'session');
  assert.is(scopeOf(agent({ scope: 'agent' }), 'ana'), 'agent');
  assert.is(scopeOf(agent({ scope: 'user' }), undefined), 'user');
  for (const bad of [{ scope: 'users' }, 'user', { scope: 'user', extra: 1 }, {}]) {
    try {
      scopeOf(agent(bad), 'ana');
      assert.unreachable(JSON.stringify(bad));
    } catch (error) {
      assert.ok(isOryxError(error));
      assert.is(error.code, 'ORYX_E_MEMORY_SCOPE_INVALID');
      assert.match(error.hint!, '/w/agents/a/AGENT.md');
    }
  }
});

test('folder names: plain ids as they are; others hashed, never colliding (case, slashes, dots, the ~ form itself)', () => {
  assert.is(fileSafeName('ana'), 'ana');
  assert.is(fileSafeName('ana@example.com'), 'ana@example.com');
  const names = ['Ana', 'ana', 'ANA', '../etc', '..', '.hidden', 'a/b', 'a\\b', '用户', 'x'.repeat(300), fileSafeName('Ana')];
  const folders = names.map(fileSafeName);
  assert.is(new Set(folders.map((f) => f.toLowerCase())).size, names.length, folders.join(' '));
  for (const f of folders) {
    assert.ok(!f.includes('/') && !f.includes('\\') && !f.startsWith('.') && f.length <= 100, f);
  }
  assert.match(fileSafeName('Ana Lopez'), /^ana-lopez~[0-9a-f]{24}$/);
});

test("two users: each one's save_memory reaches only their own prompts and recall; the agent memory reaches both", async () => {
  const llm = scripted([
    // ana saves a fact, then answers
    { toolCalls: [{ name: 'save_memory', args: { text: 'ANA-SECRET: Ana is allergic to peanuts', zone: 'core' } }] },
    { text: 'noted' },
    // bob asks; then recalls "peanuts"
    { toolCalls: [{ name: 'recall_memory', args: { query: 'peanuts allergic' } }] },
    { text: 'nothing found' },
    // ana recalls
    { toolCalls: [{ name: 'recall_memory', args: { query: 'peanuts deploy' } }] },
    { text: 'found' },
  ]);
  const t = await start({ plugins: [llm, memory()], agents: { assistant: { tools: ['save_memory', 'recall_memory'] } } });
  // What the operator put in the agent memory (the CLI's default scope) reaches everyone.
  await storeOf(t).save('assistant', 'AGENT-FACT: deploys happen on Fridays, peanuts are banned at the office', 'archive');

  await t.service.process({ agent: 'assistant', message: 'remember my allergy', user: 'ana' });
  assert.match(toolResult(llm.requests[1]!), "Saved to Core of this user's memory");
  const anaFile = path.join(t.kernel.config.workspaceDir, 'memory', 'users', 'ana', 'MEMORY.md');
  assert.equal(parseMemory(await readFile(anaFile, 'utf8')).core.map((e) => e.text), ['ANA-SECRET: Ana is allergic to peanuts']);
  assert.not.match(await readFile(sharedFile(t), 'utf8'), 'ANA-SECRET');

  await t.service.process({ agent: 'assistant', message: 'what do you know about me?', user: 'bob' });
  for (const r of llm.requests.slice(2, 4)) {
    assert.not.match(JSON.stringify(r.messages), 'ANA-SECRET');
    assert.match(system(r), 'AGENT-FACT');
  }
  assert.match(toolResult(llm.requests[3]!), '[agent]');
  assert.not.match(toolResult(llm.requests[3]!), 'ANA-SECRET');

  await t.service.process({ agent: 'assistant', message: 'and me?', user: 'ana' });
  assert.match(system(llm.requests[4]!), 'ANA-SECRET');
  assert.match(system(llm.requests[4]!), "this user's memory (.oryxos/memory/users/ana/MEMORY.md)");
  assert.match(toolResult(llm.requests[5]!), '[agent]');
});

test('a run without a user (the CLI) saves to the agent memory; scope session keeps saves in the conversation', async () => {
  const llm = scripted([
    { toolCalls: [{ name: 'save_memory', args: { text: 'CLI-FACT' } }] }, { text: 'ok' },
    { toolCalls: [{ name: 'save_memory', args: { text: 'SESSION-FACT' } }] }, { text: 'ok' },
    { text: 'other session' },
  ]);
  const t = await start({
    plugins: [llm, memory()],
    agents: { assistant: { tools: ['save_memory'] }, scratch: { tools: ['save_memory'], memory: { scope: 'session' } } },
  });
  await t.service.process({ agent: 'assistant', message: 'remember' });
  assert.match(toolResult(llm.requests[1]!), "the agent's memory");
  assert.match(await readFile(sharedFile(t), 'utf8'), 'CLI-FACT');

  const a = await t.service.process({ agent: 'scratch', message: 'remember', user: 'ana' });
  assert.match(toolResult(llm.requests[3]!), "this conversation's memory");
  assert.equal((await storeOf(t).read('scratch', { scope: 'session', session: a.sessionId })).archive.map((e) => e.text), ['SESSION-FACT']);
  assert.not.match(await readFile(sharedFile(t), 'utf8'), 'SESSION-FACT');
  await t.service.process({ agent: 'scratch', message: 'hi', user: 'ana' });
  assert.not.match(system(llm.requests[4]!), 'SESSION-FACT', 'a new session of the same user does not see it');
  assert.match(system(llm.requests[4]!), 'CLI-FACT');
});

test("checkpoints stay with their session: B's prompts never hold A's turns; A's later prompts hold A's", async () => {
  const llm = scripted(Array.from({ length: 8 }, (_, i) => ({ text: `answer ${i}` })));
  const t = await start({ plugins: [llm, memory()], agents: { assistant: { tools: [], settings: { max_history_turns: 1 } } } });
  const a = await t.service.process({ agent: 'assistant', message: 'A-ASK-1 my bank PIN is 4321', user: 'ana' });
  await t.service.process({ agent: 'assistant', session: a.sessionId, message: 'A-ASK-2', user: 'ana' });
  await t.service.process({ agent: 'assistant', session: a.sessionId, message: 'A-ASK-3', user: 'ana' });
  assert.match(system(llm.requests[2]!), `the user asked "A-ASK-1 my bank PIN is 4321"; the answer was "answer 0" (session ${a.sessionId} #1)`);
  // Same user, another conversation; and another user.
  const b = await t.service.process({ agent: 'assistant', message: 'B-ASK-1', user: 'ana' });
  await t.service.process({ agent: 'assistant', session: b.sessionId, message: 'B-ASK-2', user: 'ana' });
  await t.service.process({ agent: 'assistant', message: 'C-ASK-1', user: 'bob' });
  for (const r of llm.requests.slice(3)) assert.not.match(JSON.stringify(r.messages), 'A-ASK');
  assert.match(system(llm.requests[4]!), 'B-ASK-1');
  assert.is(await exists(sharedFile(t)), false, 'no checkpoint reaches the agent memory');
});

test('migration: checkpoints of several sessions leave MEMORY.md for their sessions (or a kept file), once; the rest stays', async () => {
  const llm = scripted([{ text: 'one' }, { text: 'two' }, { text: 'three' }]);
  const t = await start({ plugins: [llm, memory()], agents: { assistant: { tools: ['recall_memory'] } } });
  const sessions = t.kernel.service('sessions');
  await sessions.create({ agent: 'assistant', id: 's-live-1' });
  await sessions.create({ agent: 'assistant', id: 'S-Live-2' });
  const cp = (session: string, n: number) => `Earlier conversation: the user asked "${session} ask ${n}"; the answer was "${session} answer ${n}" (session ${session} #${n})`;
  const original = [
    '# Memory', '', '<!-- hand-written notes stay as they are -->', '## Core', '- 2025-01-01: CORE-FACT the user base is in Lyon', '',
    '## Archive', '- 2025-01-02: ARCHIVE-FACT migrated to Postgres 16',
    `- 2025-01-03: ${cp('s-live-1', 1)}`, `- 2025-01-03: ${cp('S-Live-2', 1)}`, `- 2025-01-04: ${cp('s-gone', 1)}`,
    `- 2025-01-05: ${cp('s-live-1', 3)}`, '- 2025-01-06: Earlier conversation: a note a person wrote, with no session key', '',
  ].join('\n');
  await write(sharedFile(t), original);

  await t.service.process({ agent: 'assistant', message: 'hello', user: 'carol' });
  assert.not.match(JSON.stringify(llm.requests[0]!.messages), 'ask 1', 'the first prompt after the upgrade already holds none');
  assert.match(system(llm.requests[0]!), 'ARCHIVE-FACT');
  const after = await readFile(sharedFile(t), 'utf8');
  assert.not.match(after, '(session ');
  for (const kept of ['<!-- hand-written notes stay as they are -->', 'CORE-FACT', 'ARCHIVE-FACT', 'a note a person wrote']) assert.match(after, kept);

  const store = storeOf(t);
  const live1 = (await store.read('assistant', { scope: 'session', session: 's-live-1' })).archive;
  assert.equal(live1, [{ date: '2025-01-03', text: cp('s-live-1', 1) }, { date: '2025-01-05', text: cp('s-live-1', 3) }]);
  assert.equal((await store.read('assistant', { scope: 'session', session: 'S-Live-2' })).archive.map((e) => e.text), [cp('S-Live-2', 1)]);
  const kept = await readFile(path.join(t.kernel.config.workspaceDir, 'memory', MIGRATED_FILE), 'utf8');
  assert.equal(parseMemory(kept).archive.map(({ date, text }) => ({ date, text })), [{ date: '2025-01-04', text: cp('s-gone', 1) }]);
  assert.match(kept, /sessions that no longer\s+exist/);

  // The moved checkpoints reach their own session's prompt, and only that one.
  await t.service.process({ agent: 'assistant', session: 's-live-1', message: 'again', user: 'carol' });
  assert.match(system(llm.requests[1]!), 's-live-1 answer 3');
  assert.not.match(system(llm.requests[1]!), 'S-Live-2');
  // A second start finds nothing to move and changes nothing.
  await t.service.process({ agent: 'assistant', message: 'third', user: 'carol' });
  assert.is(await readFile(sharedFile(t), 'utf8'), after);
  assert.is((await store.read('assistant', { scope: 'session', session: 's-live-1' })).archive.length, 2);
});

test('sweep: the memory of a deleted session goes; a live one and a folder of unknown origin stay', async () => {
  const ws = path.join(await import('node:os').then((os) => os.tmpdir()), `oryx-sweep-${process.pid}-${Date.now()}`);
  const store = new FileMemoryStore({ workspaceDir: ws });
  try {
    await store.checkpoint('live', [{ key: '(session live #1)', text: 'Earlier conversation: live (session live #1)' }]);
    await store.checkpoint('Gone-Session', [{ key: '(session Gone-Session #1)', text: 'Earlier conversation: gone (session Gone-Session #1)' }]);
    await mkdir(path.join(store.sessionsDir, 'someone~0123456789abcdef01234567'), { recursive: true });
    const removed = await sweepSessions(store, async (id) => id === 'live');
    assert.equal(removed, ['Gone-Session']);
    assert.equal((await readdir(store.sessionsDir)).sort(), ['live', 'someone~0123456789abcdef01234567']);
    assert.is((await store.read('x', { scope: 'session', session: 'live' })).archive.length, 1);
  } finally {
    await import('node:fs/promises').then((fs) => fs.rm(ws, { recursive: true, force: true }));
  }
});

test('without a durable session store, session memories live in a temp folder that close removes', async () => {
  const llm = scripted([{ text: '1' }, { text: '2' }]);
  const t = await testKernel({ plugins: [llm, memory()], agents: { assistant: { tools: [], settings: { max_history_turns: 1 } } } });
  const dir = storeOf(t).sessionsDir;
  assert.not.match(dir, t.kernel.config.workspaceDir);
  const a = await t.service.process({ agent: 'assistant', message: 'one' });
  await t.service.process({ agent: 'assistant', session: a.sessionId, message: 'two' });
  assert.match(system(llm.requests[1]!), 'the user asked "one"');
  assert.ok(await exists(path.join(dir, a.sessionId, 'MEMORY.md')));
  await t.close();
  assert.is(await exists(dir), false);
});

test('a bad memory: setting fails the run with its code', async () => {
  const llm = scripted([{ text: 'never' }]);
  const t = await start({ plugins: [llm, memory()], agents: { assistant: { tools: ['save_memory'] }, broken: { tools: [], memory: { scope: 'everyone' } } } });
  const r = await t.service.process({ agent: 'broken', message: 'hi' }).catch((error) => error);
  const code = isOryxError(r) ? r.code : r.error?.code;
  assert.is(code, 'ORYX_E_MEMORY_SCOPE_INVALID');
  assert.is(llm.requests.length, 0);
});

test.run();
