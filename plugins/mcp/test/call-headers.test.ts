// The headers of a tool call (ctx.headers: a tracing plugin's W3C `traceparent`) go on the
// Streamable HTTP request of that call, and only of that call: two calls at once each carry their
// own, and the connection's other requests (initialize, tools/list) carry none.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Plugin } from '@oryxos/kernel';
import { allowAll, scripted, testKernel } from '@oryxos/kernel/testing';
import mcp from '../src/index.ts';
import { mcpHttpServer } from './http-server.ts';

const parent = (id: string) => `00-${'a'.repeat(32)}-${id.padStart(16, '0')}-01`;
/** Gives each call the traceparent of its id, as a tracer would. */
const tracer: Plugin = {
  name: 'tracer', version: '1.0.0', kernel: '^1',
  setup(ctx) { ctx.hooks.beforeTool.tapPromise(async (info) => { info.headers.traceparent = parent(info.call.id.replace(/\D/g, '')); return undefined; }); },
};

test('each tools/call over Streamable HTTP carries its own call\'s headers', async () => {
  const server = await mcpHttpServer();
  const llm = scripted([
    { toolCalls: [{ id: 'c1', name: 'remote__echo', args: { text: 'one' } }, { id: 'c2', name: 'remote__echo', args: { text: 'two' } }] },
    { text: 'done' },
  ]);
  const t = await testKernel({ plugins: [allowAll(), llm, mcp({ servers: { remote: { url: server.url } } }), tracer] });
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.answer, 'done');
    const calls = server.hits.filter((h) => h.rpc === 'tools/call').map((h) => h.headers.traceparent).sort();
    assert.equal(calls, [parent('1'), parent('2')]);
    const others = server.hits.filter((h) => h.rpc !== 'tools/call' && h.method === 'POST');
    assert.ok(others.some((h) => h.rpc === 'initialize'), 'the connection was made');
    assert.equal(others.map((h) => h.headers.traceparent), others.map(() => undefined), 'no call headers outside the call');
  } finally {
    await t.close();
    await server.close();
  }
});

test.run();
