import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OryxError, type ToolMessage } from '@oryxos/provider-spec';
import type { Plugin, Tool } from '@oryxos/kernel';
import { allowAll, scripted, testKernel } from '@oryxos/kernel/testing';

const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 0 }, mode: { enum: ['a', 'b'] } }, required: ['n'], additionalProperties: false };
const tools = (...list: Tool[]): Plugin => ({ name: 'tools', version: '1.0.0', kernel: '^1', setup(k) { list.forEach((t) => k.registerTool(t)); } });
const base = (name: string, execute: Tool['execute'], extra: Partial<Tool> = {}): Tool => ({ name, description: name, source: 'plugin', inputSchema: schema, execute, ...extra });

/** Runs one scripted tool call and returns the tool message the model saw next, and the afterTool status. */
async function callOnce(call: { name: string; args?: Record<string, unknown>; argsError?: string }, plugins: Plugin[], agentTools = ['*']) {
  const llm = scripted([{ toolCalls: [{ id: 'c', ...call }] }, { text: 'recovered' }]);
  const t = await testKernel({ plugins: [llm, ...plugins], agents: { assistant: { tools: agentTools } } });
  const statuses: string[] = [];
  t.kernel.hooks.afterTool.tap('test', (r, info) => { statuses.push(info.status); return r; });
  const r = await t.service.process({ agent: 'assistant', message: 'go' });
  await t.close();
  assert.is(r.stopReason, 'final', 'the loop goes on after a tool failure');
  assert.is(r.answer, 'recovered');
  return { message: llm.requests[1]!.messages.at(-1) as ToolMessage, status: statuses[0], tools: llm.requests[0]!.tools.map((x) => x.name) };
}

test('unknown tool → error result listing the available tools', async () => {
  const { message, status } = await callOnce({ name: 'nope', args: {} }, [tools(base('count', async () => 'x'))]);
  assert.is(message.isError, true);
  assert.is(message.toolCallId, 'c');
  assert.match(message.content, 'Unknown tool "nope". Available tools: count.');
  assert.is(status, 'error');
});

test('a tool outside the agent allow-list is unknown to it', async () => {
  const { message, tools: offered } = await callOnce({ name: 'secret', args: { n: 1 } }, [tools(base('secret', async () => 'leak'), base('fs__read', async () => 'x'))], ['fs__*']);
  assert.equal(offered, ['fs__read']);
  assert.is(message.isError, true);
  assert.not.match(message.content, 'leak');
});

test('invalid JSON arguments → error result asking for valid JSON', async () => {
  let ran = false;
  const { message } = await callOnce({ name: 'count', argsError: 'Unexpected token } in {"n":}' }, [tools(base('count', async () => { ran = true; return 'x'; }))]);
  assert.is(ran, false);
  assert.match(message.content, 'not valid JSON (Unexpected token } in {"n":})');
});

test('schema violations → error result naming the field', async () => {
  const t = tools(base('count', async () => 'x'));
  assert.match((await callOnce({ name: 'count', args: {} }, [t])).message.content, 'n: is required');
  assert.match((await callOnce({ name: 'count', args: { n: 'five' } }, [t])).message.content, 'n: must be integer (got string)');
  assert.match((await callOnce({ name: 'count', args: { n: -1 } }, [t])).message.content, 'n: must be >= 0');
  assert.match((await callOnce({ name: 'count', args: { n: 1, mode: 'c' } }, [t])).message.content, 'mode: must be one of "a", "b"');
  assert.match((await callOnce({ name: 'count', args: { n: 1, extra: true } }, [t])).message.content, 'extra: is not an allowed field');
});

test('a tool-level validate() replaces the schema check', async () => {
  const t = tools(base('v', async () => 'ran', { validate: (a) => (a.n === 13 ? 'n: unlucky' : undefined) }));
  assert.match((await callOnce({ name: 'v', args: { n: 13 } }, [t])).message.content, 'Invalid arguments for v: n: unlucky');
  assert.is((await callOnce({ name: 'v', args: { n: 'x' } }, [t])).message.content, 'ran');
});

test('a thrown error → error result with the message; retryable is kept', async () => {
  const t = tools(base('boom', async () => { throw new OryxError('ORYX_E_X', 'disk on fire', { retryable: true }); }));
  const llm = scripted([{ toolCalls: [{ name: 'boom', args: { n: 1 } }] }, { text: 'ok' }]);
  const k = await testKernel({ plugins: [llm, t] });
  const results: unknown[] = [];
  k.kernel.hooks.afterTool.tap('test', (r) => { results.push(r); return r; });
  await k.service.process({ agent: 'assistant', message: 'go' });
  await k.close();
  assert.equal(results, [{ content: 'boom failed: disk on fire', isError: true, retryable: true }]);
});

test('a tool past its time limit is cancelled → retryable error result', async () => {
  let aborted = false;
  const slow = base('slow', (_a, ctx) => new Promise((resolve) => {
    ctx.signal.addEventListener('abort', () => { aborted = true; resolve('late'); });
  }), { timeoutMs: 30 });
  const { message, status } = await callOnce({ name: 'slow', args: { n: 1 } }, [tools(slow)]);
  assert.is(message.isError, true);
  assert.match(message.content, 'slow timed out after 30 ms');
  assert.is(status, 'error');
  assert.ok(aborted, 'the tool saw its signal aborted');
});

test('sandbox actions: the default sandbox denies; the denial reaches the model with the reason', async () => {
  let ran = false;
  const writer = base('write', async () => { ran = true; return 'written'; }, { actions: () => [{ kind: 'file', op: 'write', path: '/tmp/x' }] });
  const { message, status } = await callOnce({ name: 'write', args: { n: 1 } }, [tools(writer)]);
  assert.is(ran, false);
  assert.is(status, 'denied');
  assert.match(message.content, 'Denied by the sandbox: no sandbox plugin is enabled');
});

test('sandbox: a tool enforcing at the point of I/O is denied too; allowed actions run', async () => {
  const io = base('io', async (_a, ctx) => { await ctx.enforce({ kind: 'http', url: 'http://x', method: 'GET' }); return 'fetched'; });
  assert.is((await callOnce({ name: 'io', args: { n: 1 } }, [tools(io)])).status, 'denied');
  const ok = await callOnce({ name: 'io', args: { n: 1 } }, [tools(io), allowAll()]);
  assert.is(ok.status, 'ok');
  assert.is(ok.message.content, 'fetched');
});

test('a tool returning a ToolResult object keeps isError and content', async () => {
  const t = tools(base('r', async () => ({ content: 'exit code 2', isError: true })));
  const { message, status } = await callOnce({ name: 'r', args: { n: 1 } }, [t]);
  assert.equal(message, { role: 'tool', toolCallId: 'c', name: 'r', content: 'exit code 2', isError: true });
  assert.is(status, 'error');
});

test('headers a beforeTool tap puts on the call reach the tool as ctx.headers (a tracing plugin\'s traceparent)', async () => {
  const seen: Record<string, string>[] = [];
  const probe = base('probe', async (_a, ctx) => { seen.push({ ...ctx.headers }); return 'ok'; });
  const tracer: Plugin = {
    name: 'tracer', version: '1.0.0', kernel: '^1',
    setup(ctx) { ctx.hooks.beforeTool.tapPromise(async (info) => { info.headers.traceparent = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`; return undefined; }); },
  };
  assert.is((await callOnce({ name: 'probe', args: { n: 1 } }, [tools(probe), tracer])).status, 'ok');
  assert.equal(seen, [{ traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` }]);
});

test.run();
