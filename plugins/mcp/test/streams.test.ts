// Streams that break and sessions that end, against fixtures/http-misbehaving.ts: a cut answer
// stream fails the call at once (not at its timeout) and is sent again once only when the tool
// may run twice; a session the server forgot (404) is renewed without the model seeing a failure.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scripted, type TestKernel } from '@oryxos/kernel/testing';
import type { ToolMessage } from '@oryxos/provider-spec';
import { startMisbehaving, type MisbehavingServer } from './fixtures/http-misbehaving.ts';
import { mcpKernel } from './helpers.ts';

let server: MisbehavingServer;
let t: TestKernel | undefined;
test.before.each(async () => { server = await startMisbehaving(); });
test.after.each(async () => { await t?.close(); t = undefined; await server.close(); });

test('a response stream cut before the answer fails the call at once, retryable, saying it may have run; not sent again', async () => {
  t = await mcpKernel({ servers: { bad: { url: server.url, timeoutMs: 30_000 } } });
  const m = t.kernel.service('mcp');
  const started = Date.now();
  const cut = await m.call('bad', 'cut');
  assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms: it waited for the timeout`);
  assert.is(cut.isError, true);
  assert.is(cut.retryable, true);
  assert.match(cut.content, /the response stream was cut before the answer came/);
  assert.match(cut.content, /may or may not have run/);
  assert.is(server.calls.cut, 1, 'a tool that may not run twice is not sent again');
  const closed = await m.call('bad', 'close');
  assert.match(closed.content, /closed the response stream without answering/);
  assert.is((await m.call('bad', 'ok')).content, 'fine', 'the connection is still good');
});

test('a tool the server marks read-only is sent again once when its stream is cut', async () => {
  t = await mcpKernel({ servers: { bad: { url: server.url, timeoutMs: 30_000 } } });
  const result = await t.kernel.service('mcp').call('bad', 'flaky');
  assert.is(result.content, 'second time lucky');
  assert.is(server.calls.flaky, 2);
});

test('a session the server forgot (HTTP 404) is renewed and the call sent again: the model sees only the answer', async () => {
  const llm = scripted([
    { toolCalls: [{ id: 'c1', name: 'bad__ok' }] },
    // Between the two calls the server forgets every session, as a restarted server would.
    () => { server.forget(); return { toolCalls: [{ id: 'c2', name: 'bad__ok' }] }; },
    { text: 'done' },
  ]);
  t = await mcpKernel({ servers: { bad: { url: server.url } } }, { plugins: [llm] });
  const run = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(run.stopReason, 'final');
  const results = llm.requests.slice(1).map((r) => r.messages.filter((x): x is ToolMessage => x.role === 'tool').at(-1)!);
  assert.equal(results.map((r) => [r.content, !!r.isError]), [['fine', false], ['fine', false]]);
  assert.is(server.sessions, 2, 'a new session was started');
  assert.is(server.calls.ok, 2);
  assert.is(t.kernel.service('mcp').status()[0]!.failures, 0, 'and it did not count as a failure');
});

test.run();
