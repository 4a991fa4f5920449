import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AssistantMessage, StoredMessage } from '@oryxos/kernel';
import { scripted, testKernel, writeAgents } from '@oryxos/kernel/testing';
import sqlite from '../src/index.ts';
import { Worker } from './child.ts';
import { openStore, tempDir } from './helpers.ts';

/** Every tool result follows the assistant message that called it; seq runs 1..n without gaps. */
function assertConsistent(stored: StoredMessage[]): void {
  assert.equal(stored.map((m) => m.seq), stored.map((_, i) => i + 1), 'seq is contiguous');
  const called = new Set<string>();
  for (const { message } of stored) {
    if (message.role === 'assistant') for (const c of message.toolCalls ?? []) called.add(c.id);
    if (message.role === 'tool') assert.ok(called.has(message.toolCallId), `tool result ${message.toolCallId} has its call before it`);
  }
}

test('SIGKILL mid-run: every committed step is there, nothing half-written, the session goes on', async () => {
  const { dir, cleanup } = await tempDir();
  const worker = new Worker(['crash-run', dir]);
  try {
    await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['*'] } });
    const sessionId = (await worker.waitFor('SESSION ')).slice('SESSION '.length);
    await worker.waitFor('BLOCKED');
    await worker.kill();
    assert.not.ok(worker.lines.includes('UNEXPECTED END'));

    // The lease the dead process held must not make us wait: leaseMs is far above lockTimeoutMs.
    const llm = scripted([{ text: 'resumed' }]);
    const k = await testKernel({ plugins: [llm, sqlite({ leaseMs: 600_000, lockTimeoutMs: 3000 })], dir, agents: { assistant: { tools: [] } } });
    try {
      const store = k.kernel.service('sessions');
      const stored = await store.messages(sessionId);
      assertConsistent(stored);
      assert.equal(stored.map((m) => m.message.role), ['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
      assert.equal(stored.filter((m) => m.message.role === 'tool').map((m) => m.message.content), ['step 1 done', 'step 2 done']);
      assert.equal((stored[5]!.message as AssistantMessage).toolCalls?.map((c) => c.id), ['c3'], 'the step in flight: its call committed, its result lost');
      assert.is((await store.get(sessionId))?.messageCount, 6);

      const r = await k.service.process({ agent: 'assistant', session: sessionId, message: 'are you there?' });
      assert.is(r.answer, 'resumed');
      const sent = llm.requests[0]!.messages.slice(1);
      assert.is(sent.length, 8, 'six stored, the repaired result of c3, the new message');
      assert.equal(sent[6], { role: 'tool', toolCallId: 'c3', name: 'step', content: 'No result was recorded for this call (the run was interrupted).', isError: true });
      assertConsistent(await store.messages(sessionId));
      assert.is((await store.messages(sessionId)).length, 8);
      assert.ok(k.warnings.some((w) => w.includes('took over the lease')), 'the dead process\'s lease was taken over');
    } finally {
      await k.close({ keep: true });
    }
  } finally {
    await worker.kill();
    await cleanup();
  }
});

test('SIGKILL during a stream of appends: only whole appends survive', async () => {
  const { dir, cleanup } = await tempDir();
  const worker = new Worker(['append-loop', dir]);
  try {
    await worker.waitFor((l) => l.startsWith('BATCHES ') && Number(l.slice(8)) >= 300);
    await worker.kill();
    const s = await openStore(path.join(dir, '.oryxos', 'oryx.db'), 'libsql');
    try {
      let total = 0;
      for (let i = 0; i < 4; i++) {
        const id = `loop-${i}`;
        const stored = await s.store.messages(id);
        assertConsistent(stored);
        assert.is(stored.length % 3, 0, `${id}: a whole number of 3-message appends`);
        for (let j = 0; j < stored.length; j += 3) {
          const batch = stored[j]!.message.content.slice(1);
          assert.equal(stored.slice(j, j + 3).map((m) => m.message.role), ['user', 'assistant', 'tool']);
          assert.is(stored[j + 2]!.message.content, `r${batch}`);
        }
        assert.is((await s.store.get(id))?.messageCount, stored.length, 'message_count agrees with the rows');
        total += stored.length / 3;
      }
      assert.ok(total >= 300, `at least the 300 batches reported before the kill (${total})`);
      assert.equal(await s.db.query('PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
    } finally {
      await s.close();
    }
  } finally {
    await worker.kill();
    await cleanup();
  }
});

test.run();
