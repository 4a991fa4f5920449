// End-to-end: the built `oryx` binary in a temp project. Build first:
//   npx tsc -b plugins/sqlite plugins/audit && node scripts/manifest.mjs
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { echoTool, runOryx, scripted, tempProject, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import sqlite from '../src/index.ts';

async function json(cwd: string, ...args: string[]): Promise<any> {
  const r = await runOryx([...args, '--json'], { cwd });
  assert.is(r.code, 0, `oryx ${args.join(' ')} failed: ${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout);
}

test('without a config file the CLI lists, shows and deletes sessions of the embedded default database', async () => {
  // outside the repository, so no oryx.config.ts is found up the tree
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-sqlite-cli-'));
  try {
    const llm = scripted([{ toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'ping' } }] }, { text: 'pinged' }, { text: 'hello b' }, { text: 'hello c' }]);
    const k = await testKernel({ plugins: [llm, toolsPlugin(echoTool()), sqlite()], dir, agents: { assistant: { tools: ['*'] }, other: {} } });
    const a = await k.service.process({ agent: 'assistant', message: 'please ping' });
    const b = await k.service.process({ agent: 'other', message: 'hi b' });
    const c = await k.service.process({ agent: 'other', message: 'hi c' });
    await k.close({ keep: true });

    // independent reads, run side by side
    const [all, other, shown, human] = await Promise.all([
      json(dir, 'sessions'),
      json(dir, 'sessions', '--agent', 'other', '--limit', '1'),
      json(dir, 'sessions', 'show', a.sessionId),
      runOryx(['sessions', 'show', a.sessionId.slice(0, 8)], { cwd: dir }),
    ]);
    assert.equal(all.items.map((s: { id: string }) => s.id), [c.sessionId, b.sessionId, a.sessionId]);
    assert.is(all.items[2].messageCount, 4);
    assert.is(all.nextCursor, undefined);
    assert.equal(other.items.map((s: { id: string }) => s.id), [c.sessionId], 'filtered by agent, one per page');
    assert.ok(other.nextCursor, 'a cursor to the next page');

    assert.is(shown.id, a.sessionId, "a show prints the object itself: the session with its messages");
    assert.equal(shown.messages.map((m: { message: { role: string } }) => m.message.role), ['user', 'assistant', 'tool', 'assistant']);
    assert.equal(shown.messages[1].message.toolCalls, [{ id: 'c1', name: 'echo', args: { text: 'ping' } }]);

    assert.is(human.code, 0, human.stderr);
    assert.match(human.stdout, `session ${a.sessionId}`);
    assert.match(human.stdout, '→ echo({"text":"ping"}) [c1]');
    assert.match(human.stdout, '#3 tool echo [c1] ok');
    assert.match(human.stdout, 'echo: ping');

    const deleted = await json(dir, 'sessions', 'delete', a.sessionId);
    assert.equal(deleted, { id: a.sessionId, deleted: true, messages: 4 });
    const gone = await runOryx(['sessions', 'show', a.sessionId, '--json'], { cwd: dir });
    assert.is(gone.code, 1);
    assert.is(JSON.parse(gone.stdout).error.code, 'ORYX_E_SESSION_NOT_FOUND');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('`oryx run -s ID` resumes a stored session in a new process; the model sees the earlier turn', async () => {
  const dir = await tempProject('oryx-sqlite-run-');
  try {
    await writeFile(path.join(dir, 'oryx.config.ts'), `
import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
const seen = (request) => ({ text: 'seen: ' + request.messages.slice(1).map((m) => m.content).join(' | ') });
export default defineConfig({ plugins: [sqlite(), scripted([seen])] });
`);
    const k = await testKernel({ plugins: [scripted([]), sqlite()], dir });
    await k.close({ keep: true });
    const first = await json(dir, 'run', 'my name is Ada');
    assert.is(first.answer, 'seen: my name is Ada');
    const second = await json(dir, 'run', '-s', first.sessionId, 'what is my name?');
    assert.is(second.sessionId, first.sessionId);
    assert.is(second.answer, 'seen: my name is Ada | seen: my name is Ada | what is my name?');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
