import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AgentService, type Plugin, type StoredMessage, type Tool } from '@oryxos/kernel';
import { scripted, testKernel, writeAgents } from '@oryxos/kernel/testing';
import sqlite from '../src/index.ts';
import { Worker } from './child.ts';
import { openStore, rejection, tempDir } from './helpers.ts';

const slow: Tool = {
  name: 'slow', description: 'takes a while', source: 'plugin',
  inputSchema: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] },
  async execute(args) { await sleep(100); return `slow ${args.label}`; },
};
const tools: Plugin = { name: 'test-tools', version: '1.0.0', kernel: '^1', setup(k) { k.registerTool(slow); } };

/** Each run is user → assistant(tool call) → tool → assistant; the runs must come one after the other. */
function assertExchangesNotInterleaved(stored: StoredMessage[], labels: string[]): void {
  assert.equal(stored.map((m) => m.seq), stored.map((_, i) => i + 1));
  assert.is(stored.length, labels.length * 4);
  const seen: string[] = [];
  for (let i = 0; i < stored.length; i += 4) {
    const block = stored.slice(i, i + 4).map((m) => m.message);
    const label = block[0]!.content.replace('go ', '');
    assert.equal(block.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant'], `block ${i / 4} is one whole exchange`);
    assert.is(block[2]!.content, `slow ${label}`);
    assert.is(block[3]!.content, `done ${label}`);
    seen.push(label);
  }
  assert.equal(seen.sort(), [...labels].sort());
}

/** A script that answers each run by its label, whichever run comes first. */
function byLabel() {
  return scripted(Array.from({ length: 8 }, () => (request) => {
    const last = request.messages.at(-1)!;
    if (last.role === 'user') return { toolCalls: [{ name: 'slow', args: { label: last.content.replace('go ', '') } }] };
    return { text: `done ${last.content.replace('slow ', '')}` };
  }));
}

test('two runs on one session at once in one process, through two AgentServices: serialized by the lease', async () => {
  const { dir, cleanup } = await tempDir();
  const k = await testKernel({ plugins: [byLabel(), tools, sqlite()], dir });
  try {
    const session = await k.kernel.service('sessions').create({ agent: 'assistant' });
    const other = new AgentService(k.kernel); // its own in-process queue: only the store's lock orders them
    const results = await Promise.all([
      k.service.process({ agent: 'assistant', session: session.id, message: 'go A' }),
      other.process({ agent: 'assistant', session: session.id, message: 'go B' }),
      k.service.process({ agent: 'assistant', session: session.id, message: 'go C' }),
    ]);
    assert.equal(results.map((r) => r.answer), ['done A', 'done B', 'done C']);
    assertExchangesNotInterleaved(await k.kernel.service('sessions').messages(session.id), ['A', 'B', 'C']);
    assert.equal(await k.kernel.service('database').query('SELECT * FROM session_leases'), [], 'every lease released');
  } finally {
    await k.close({ keep: true });
    await cleanup();
  }
});

test('two processes on one session at once: both exchanges stored, one after the other', async () => {
  const { dir, cleanup } = await tempDir();
  const workers: Worker[] = [];
  try {
    await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['*'] } });
    const s = await openStore(path.join(dir, '.oryxos', 'oryx.db'), 'libsql');
    const { id } = await s.store.create({ agent: 'assistant' });
    await s.close();
    workers.push(new Worker(['exchange', dir, id, 'P']), new Worker(['exchange', dir, id, 'Q']));
    const results = await Promise.all(workers.map(async (w) => JSON.parse((await w.waitFor('RESULT ')).slice(7))));
    assert.equal(results.map((r) => r.answer).sort(), ['done P', 'done Q']);
    // the second run saw the whole first exchange: system + 4 + its own message
    assert.equal(results.map((r) => r.firstPrompt).sort(), [2, 6]);
    const check = await openStore(path.join(dir, '.oryxos', 'oryx.db'), 'libsql');
    try {
      assertExchangesNotInterleaved(await check.store.messages(id), ['P', 'Q']);
    } finally {
      await check.close();
    }
  } finally {
    await Promise.all(workers.map((w) => w.kill()));
    await cleanup();
  }
});

test('lock: waits for the holder, honours an abort signal, times out with the holder named, and is renewed while held', async () => {
  const { dir, cleanup } = await tempDir();
  const s = await openStore(path.join(dir, 'a.db'), 'libsql', { leaseMs: 1000, lockTimeoutMs: 300 });
  try {
    const { id } = await s.store.create({ agent: 'a' });
    const release = await s.store.lock(id);

    const controller = new AbortController();
    const waiting = rejection(() => s.store.lock(id, controller.signal));
    controller.abort();
    assert.is((await waiting).code, 'ORYX_E_RUN_ABORTED');

    const busy = await rejection(() => s.store.lock(id));
    assert.is(busy.code, 'ORYX_E_SQLITE_SESSION_BUSY');
    assert.match(busy.message, `process ${process.pid}`);

    // held past its first lifetime: the heartbeat kept it
    await sleep(1500);
    const [lease] = await s.db.query<{ expires_at: number }>('SELECT expires_at FROM session_leases WHERE session_id = ?', [id]);
    assert.ok(lease && lease.expires_at > Date.now(), 'the lease was renewed');

    const next = s.store.lock(id);
    await release();
    const release2 = await next;
    await release2();
    assert.equal(await s.db.query('SELECT * FROM session_leases'), []);
  } finally {
    await s.close();
    await cleanup();
  }
});

test('an expired lease (a hung holder on another host) is taken over', async () => {
  const { dir, cleanup } = await tempDir();
  const s = await openStore(path.join(dir, 'a.db'), 'client', { leaseMs: 1000, lockTimeoutMs: 5000 });
  try {
    const { id } = await s.store.create({ agent: 'a' });
    await s.db.execute('INSERT INTO session_leases (session_id, owner, host, pid, acquired_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
      [id, 'elsewhere:1:x', 'some-other-host', 1, Date.now(), Date.now() + 200]);
    const release = await s.store.lock(id);
    const [lease] = await s.db.query<{ pid: number }>('SELECT pid FROM session_leases WHERE session_id = ?', [id]);
    assert.is(lease?.pid, process.pid);
    await release();
  } finally {
    await s.close();
    await cleanup();
  }
});

test.run();
