// End-to-end: the built `oryx` binary in a temp project. Build first:
//   npx tsc -b plugins/sqlite plugins/audit && node scripts/manifest.mjs
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Plugin, Tool } from '@oryxos/kernel';
import { scripted, tempProject, testKernel } from '@oryxos/kernel/testing';
import sqlite from '../src/index.ts';

const BIN = path.join(process.cwd(), 'bin', 'run.js');

function oryx(cwd: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function json(cwd: string, ...args: string[]): Promise<any> {
  const r = await oryx(cwd, ...args, '--json');
  assert.is(r.code, 0, `oryx ${args.join(' ')} failed: ${r.stderr}${r.stdout}`);
  return JSON.parse(r.stdout);
}

const echo: Tool = {
  name: 'echo', description: 'Echo', source: 'plugin',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  async execute(args) { return `echo: ${args.text}`; },
};
const tools: Plugin = { name: 'test-tools', version: '1.0.0', kernel: '^1', setup(k) { k.registerTool(echo); } };

test('without a config file the CLI lists, shows and deletes sessions of the embedded default database', async () => {
  // outside the repository, so no oryx.config.ts is found up the tree
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-sqlite-cli-'));
  try {
    const llm = scripted([{ toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'ping' } }] }, { text: 'pinged' }, { text: 'hello b' }, { text: 'hello c' }]);
    const k = await testKernel({ plugins: [llm, tools, sqlite()], dir, agents: { assistant: { tools: ['*'] }, other: {} } });
    const a = await k.service.process({ agent: 'assistant', message: 'please ping' });
    const b = await k.service.process({ agent: 'other', message: 'hi b' });
    const c = await k.service.process({ agent: 'other', message: 'hi c' });
    await k.close({ keep: true });

    // independent reads, run side by side
    const [all, other, shown, human] = await Promise.all([
      json(dir, 'sessions'),
      json(dir, 'sessions', '--agent', 'other', '--limit', '1'),
      json(dir, 'sessions', 'show', a.sessionId),
      oryx(dir, 'sessions', 'show', a.sessionId.slice(0, 8)),
    ]);
    assert.equal(all.items.map((s: { id: string }) => s.id), [c.sessionId, b.sessionId, a.sessionId]);
    assert.is(all.items[2].messageCount, 4);
    assert.is(all.nextCursor, undefined);
    assert.equal(other.items.map((s: { id: string }) => s.id), [c.sessionId], 'filtered by agent, one per page');
    assert.ok(other.nextCursor, 'a cursor to the next page');

    assert.is(shown.session.id, a.sessionId);
    assert.equal(shown.messages.map((m: { message: { role: string } }) => m.message.role), ['user', 'assistant', 'tool', 'assistant']);
    assert.equal(shown.messages[1].message.toolCalls, [{ id: 'c1', name: 'echo', args: { text: 'ping' } }]);

    assert.is(human.code, 0, human.stderr);
    assert.match(human.stdout, `session ${a.sessionId}`);
    assert.match(human.stdout, '→ echo({"text":"ping"}) [c1]');
    assert.match(human.stdout, '#3 tool echo [c1] ok');
    assert.match(human.stdout, 'echo: ping');

    const deleted = await json(dir, 'sessions', 'delete', a.sessionId);
    assert.equal(deleted, { id: a.sessionId, deleted: true, messages: 4 });
    const gone = await oryx(dir, 'sessions', 'show', a.sessionId, '--json');
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
