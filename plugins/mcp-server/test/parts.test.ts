// The pieces of the exposure that hold without a server: the HTTP event store's bound and replay,
// a skill's arguments read from its frontmatter, a tool result as MCP content.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import { SessionEventStore } from '../src/event-store.ts';
import { skillArguments } from '../src/prompts.ts';
import { toMcpContent } from '../src/content.ts';

const message = (id: number) => ({ jsonrpc: '2.0' as const, id, result: {} });

test('event store: replays what came after an event on its stream only, skips priming events, keeps the last N', async () => {
  const store = new SessionEventStore(4);
  const priming = await store.storeEvent('a', {} as never);
  await store.storeEvent('b', message(1));
  const second = await store.storeEvent('a', message(2));
  await store.storeEvent('a', message(3));
  const sent: [string, unknown][] = [];
  assert.is(await store.replayEventsAfter(priming, { send: async (id, m) => { sent.push([id, m]); } }), 'a');
  assert.equal(sent.map(([, m]) => (m as { id: number }).id), [2, 3], 'stream a only, after the priming event');
  assert.is(await store.getStreamIdForEventId(second), 'a');
  await store.storeEvent('a', message(4));
  assert.is(await store.getStreamIdForEventId(priming), undefined, 'the oldest event dropped past the bound');
  assert.is(await store.replayEventsAfter(priming, { send: async () => { assert.unreachable('replayed a dropped event'); } }), '');
});

test('event store: past its characters the oldest events go, the newest stays', async () => {
  const store = new SessionEventStore(100, 60);
  const first = await store.storeEvent('a', message(1));
  const big = await store.storeEvent('a', { jsonrpc: '2.0', id: 2, result: { text: 'x'.repeat(100) } });
  assert.is(await store.getStreamIdForEventId(first), undefined);
  assert.is(await store.getStreamIdForEventId(big), 'a', 'the newest is kept even alone over the bound');
});

test('skill arguments: names, required, values, resource; a malformed list is ORYX_E_MCPSERVE_PROMPT naming the file', () => {
  assert.equal(skillArguments({ arguments: [{ name: 'focus', required: true, values: ['a'] }, { name: 'session', resource: true, description: 'd' }] }, 'review.md'), [
    { name: 'focus', required: true, values: ['a'], resource: false },
    { name: 'session', description: 'd', required: false, values: [], resource: true },
  ]);
  assert.equal(skillArguments({}, 'x.md'), []);
  for (const [bad, why] of [['focus', /must be a list/], [[{ name: 'has space' }], /\[0\] needs a name/], [[{ name: 'a', kind: 'x' }], /unknown keys kind/], [[{ name: 'a', values: [1] }], /values must be a list of strings/]] as const) {
    try { skillArguments({ arguments: bad }, 'skills/review.md'); assert.unreachable(JSON.stringify(bad)); } catch (error) {
      assert.ok(isOryxError(error) && error.code === 'ORYX_E_MCPSERVE_PROMPT', String(error));
      assert.match((error as Error).message, /^skills\/review\.md: arguments /);
      assert.match((error as Error).message, why);
    }
  }
});

test('content: text unless empty beside parts; image, audio, text and binary files; a part named by a URI keeps it', () => {
  assert.equal(toMcpContent({ content: 'hi', isError: false }, 't'), [{ type: 'text', text: 'hi' }]);
  assert.equal(toMcpContent({ content: '', isError: false }, 't'), [{ type: 'text', text: '' }], 'an empty result is still one text item');
  assert.equal(toMcpContent({ content: '', isError: false, parts: [
    { type: 'image', mediaType: 'image/png', data: 'AA==' }, { type: 'file', mediaType: 'audio/mpeg', data: 'AQ==' },
    { type: 'file', mediaType: 'text/csv', data: Buffer.from('a,b').toString('base64'), name: 'file:///tmp/x.csv' }, { type: 'file', mediaType: 'application/zip', data: 'Ag==', name: 'x.zip' },
  ] }, 'my tool'), [
    { type: 'image', mimeType: 'image/png', data: 'AA==' },
    { type: 'audio', mimeType: 'audio/mpeg', data: 'AQ==' },
    { type: 'resource', resource: { uri: 'file:///tmp/x.csv', mimeType: 'text/csv', text: 'a,b' } },
    { type: 'resource', resource: { uri: 'oryx://tool-results/my%20tool/4', mimeType: 'application/zip', blob: 'Ag==' } },
  ]);
});

test.run();
