import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Message } from '@oryxos/provider-spec';
import { CHECKPOINT_ASK_CHARS, checkpointItems, checkpointKey } from '../src/checkpoint.ts';

const run = { sessionId: 's-1' };

test('one item per turn: the ask and the final answer, never tool calls or results', () => {
  const messages: Message[] = [
    { role: 'user', content: 'find the\nbug' },
    { role: 'assistant', content: 'looking', toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'a.ts' } }] },
    { role: 'tool', toolCallId: 'c1', name: 'read_file', content: 'SECRET FILE BODY' },
    { role: 'assistant', content: 'Line 3 divides by zero.' },
  ];
  const items = checkpointItems({ run, turns: [{ firstSeq: 7, messages }] });
  assert.equal(items, [{
    key: '(session s-1 #7)',
    text: 'Earlier conversation: the user asked "find the bug"; the answer was "Line 3 divides by zero." (session s-1 #7)',
  }]);
});

test('turns without a final answer, without an ask, or with neither', () => {
  const items = checkpointItems({
    run,
    turns: [
      { firstSeq: 1, messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'x', args: {} }] }] },
      { firstSeq: 3, messages: [{ role: 'assistant', content: 'resumed answer' }] },
      { firstSeq: 4, messages: [{ role: 'tool', toolCallId: 'c', name: 'x', content: 'orphan' }] },
    ],
  });
  assert.equal(items.map((i) => i.text), [
    'Earlier conversation: the user asked "go"; there was no final answer (session s-1 #1)',
    'Earlier conversation: no ask was recorded; the answer was "resumed answer" (session s-1 #3)',
  ]);
});

test('long asks are shortened; a turn without a stored position gets a stable content key', () => {
  const messages: Message[] = [{ role: 'user', content: 'w'.repeat(5000) }, { role: 'assistant', content: 'ok' }];
  const [item] = checkpointItems({ run, turns: [{ messages }] });
  assert.match(item!.text, `"${'w'.repeat(CHECKPOINT_ASK_CHARS - 1)}…"`);
  assert.match(item!.key, /^\(session s-1 ~[0-9a-f]{10}\)$/);
  assert.is(checkpointKey('s-1', { messages }), item!.key);
  assert.is.not(checkpointKey('s-1', { messages: [{ role: 'user', content: 'other' }] }), item!.key);
});

test.run();
