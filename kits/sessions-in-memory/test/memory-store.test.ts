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

test('what is read is a copy too; a call without a result is the one left started', async () => {
  const store = new InMemorySessionStore();
  const { id } = await store.create({ agent: 'a', tags: ['x'] });
  await store.append(id, [{ role: 'user', content: 'hi' }, { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'echo', args: {} }, { id: 'c2', name: 'echo', args: {} }] }]);
  await store.markStarted({ runId: 'r1', sessionId: id, toolCallId: 'c1', tool: 'echo', argsHash: 'h', startedAt: new Date().toISOString() });
  await store.markStarted({ runId: 'r1', sessionId: id, toolCallId: 'c2', tool: 'echo', argsHash: 'h', startedAt: new Date().toISOString() });
  await store.append(id, [{ role: 'tool', toolCallId: 'c1', name: 'echo', content: 'ok' }]);
  assert.equal((await store.startedWithoutResult(id)).map((m) => m.toolCallId), ['c2']);
  // A later run reuses the id c1: the earlier result does not answer the new mark.
  await store.markStarted({ runId: 'r2', sessionId: id, toolCallId: 'c1', tool: 'echo', argsHash: 'h', startedAt: new Date().toISOString() });
  assert.equal((await store.startedWithoutResult(id)).map((m) => [m.runId, m.toolCallId]), [['r1', 'c2'], ['r2', 'c1']]);
  await store.append(id, [{ role: 'tool', toolCallId: 'c1', name: 'echo', content: 'again' }, { role: 'tool', toolCallId: 'c2', name: 'echo', content: 'ok' }]);
  assert.equal(await store.startedWithoutResult(id), [], 'both answered');
  const [read] = await store.history(id, 1);
  (read!.message as { content: string }).content = 'changed';
  const info = (await store.get(id))!;
  info.tags!.push('y');
  assert.is((await store.messages(id))[0]!.message.content, 'hi');
  assert.equal((await store.get(id))!.tags, ['x']);
  assert.equal((await store.messages(id, { limit: 1 })).map((m) => m.seq), [5]);
});

test.run();
