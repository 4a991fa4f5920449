// The message codec: every message field reads back as it was appended (extras through the
// `extra` column), and a row that does not hold a message names its column.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Message } from '@oryxos/provider-spec';
import { decodeMessage, encodeMessage, tryDecodeMessage, type MessageRow } from '@oryxos/sql-store';

const row = (m: Message, seq = 1): MessageRow => {
  const e = encodeMessage(m);
  return { seq, role: e.role, content: e.content, tool_calls: e.toolCalls, tool_call_id: e.toolCallId, name: e.name, is_error: e.isError, extra: e.extra, created_at: 'T' };
};

test('every kind of message reads back exactly, parts and provider metadata through extra', () => {
  const messages: Message[] = [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: 'what is this?', parts: [{ type: 'image', mediaType: 'image/png', data: 'iVBOR', name: 'a.png' }] },
    { role: 'assistant', content: '', parts: [{ type: 'reasoning', text: 'hmm', signature: 'sig' }], toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'a' }, metadata: { gemini: { thought_signature: 'x' } } }], metadata: { anthropic: { id: 'm1' } } },
    { role: 'tool', toolCallId: 'c1', name: 'read_file', content: 'boom', isError: true },
    { role: 'tool', toolCallId: 'c2', name: 'x', content: 'ok', isError: false },
  ];
  for (const [i, m] of messages.entries()) assert.equal(decodeMessage(row(m, i + 1), 's').message, m, m.role);
  assert.is(encodeMessage({ role: 'user', content: 'plain' }).extra, null, 'no extra column for a plain message');
  assert.not.ok('isError' in decodeMessage(row({ role: 'tool', toolCallId: 'c', name: 'n', content: 'r' }), 's').message, 'no field invented');
});

test('a damaged row names the session, its seq and the column; tryDecode gives the error in its place', () => {
  const good = row({ role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'echo', args: {} }] }, 7);
  const cases: [Partial<MessageRow>, string, string][] = [
    [{ tool_calls: '[{"id":"c1"' }, 'tool_calls', 'is not valid JSON'],
    [{ tool_calls: '[{"name":"x"}]' }, 'tool_calls', 'is not a list of tool calls'],
    [{ role: 'robot' }, 'role', 'not system, user, assistant or tool'],
    [{ content: new Uint8Array([1, 2]) }, 'content', 'holds 2 bytes that are not text'],
    [{ extra: '[1]' }, 'extra', 'is not a JSON object'],
    [{ is_error: 'yes' }, 'is_error', 'is not 0 or 1'],
  ];
  for (const [damage, column, why] of cases) {
    const bad = { ...good, ...damage };
    let caught: any;
    try { decodeMessage(bad, 'sess-1'); } catch (error) { caught = error; }
    assert.is(caught?.code, 'ORYX_E_SQLITE_CORRUPT_ROW', column);
    assert.equal(caught.data, { sessionId: 'sess-1', seq: 7, column });
    assert.match(caught.message, why);
    assert.match(caught.hint, 'oryx sessions repair sess-1');
    const tried = tryDecodeMessage(bad, 'sess-1') as { code?: string };
    assert.is(tried.code, 'ORYX_E_SQLITE_CORRUPT_ROW');
  }
});

test.run();
