// stableCallId: the id both provider plugins give a tool call the server sent without one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Message } from '@oryxos/provider-spec';
import { stableCallId } from '../src/index.ts';

const conversation: Message[] = [{ role: 'user', content: 'read a.txt' }];

test('the same conversation and position give the same id; another position, call, argument or turn another', () => {
  const id = stableCallId(conversation, 0, 'read_file', { path: 'a.txt' });
  assert.match(id, /^call_[0-9a-f]{24}$/);
  assert.is(stableCallId([{ role: 'user', content: 'read a.txt' }], 0, 'read_file', { path: 'a.txt' }), id);
  const others = [
    stableCallId(conversation, 1, 'read_file', { path: 'a.txt' }),
    stableCallId(conversation, 0, 'list_dir', { path: 'a.txt' }),
    stableCallId(conversation, 0, 'read_file', { path: 'b.txt' }),
    stableCallId(conversation, 0, 'read_file', '{"path":"a.txt"}'),
    stableCallId([...conversation, { role: 'assistant', content: 'ok' }], 0, 'read_file', { path: 'a.txt' }),
  ];
  assert.is(new Set([id, ...others]).size, others.length + 1);
});

test.run();
