// The kernel's default session store: what it keeps is a copy, never the caller's objects.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Message } from '@oryxos/provider-spec';
import { InMemorySessionStore } from '../src/index.ts';

test('appended messages are stored as copies: a later change by the caller does not reach them', async () => {
  const store = new InMemorySessionStore();
  const { id } = await store.create({ agent: 'a' });
  const call: Message = { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'write_file', args: { path: 'a.txt', lines: ['x', { n: 1 }] } }] };
  const user: Message = { role: 'user', content: 'write it' };
  await store.append(id, [user, call]);
  (call.toolCalls![0]!.args.lines as unknown[]).push('added');
  ((call.toolCalls![0]!.args.lines as unknown[])[1] as { n: number }).n = 2;
  call.toolCalls![0]!.name = 'shell';
  user.content = 'changed';
  const stored = await store.messages(id);
  assert.equal(stored.map((m) => m.seq), [1, 2]);
  assert.equal(stored[0]!.message, { role: 'user', content: 'write it' });
  assert.equal(stored[1]!.message, { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'write_file', args: { path: 'a.txt', lines: ['x', { n: 1 }] } }] });
  const info = await store.get(id);
  assert.is(info?.title, 'write it');
  assert.is(info?.messageCount, 2);
  assert.ok(!Number.isNaN(Date.parse(stored[1]!.createdAt)), 'createdAt is an ISO time');
  assert.is(info?.updatedAt, stored[1]!.createdAt);
});

test.run();
