// Servers start only when an agent could use them (or all at init with eager: true).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scripted, type TestKernel } from '@oryxos/kernel/testing';
import { DISTINCTIVE_SCHEMA } from './fixtures/schema.mjs';
import { fixture, mcpKernel, waitFor } from './helpers.ts';

let t: TestKernel | undefined;
test.after.each(async () => { await t?.close(); t = undefined; });

const states = (t: TestKernel) => Object.fromEntries(t.kernel.service('mcp').status().map((s) => [s.name, s.state]));

test('an agent whose allow-list matches no server starts none', async () => {
  t = await mcpKernel({ servers: { a: fixture(), b: fixture() } }, { agents: { assistant: { tools: ['c*', 'ab*'] } } });
  const agent = await t.kernel.agents.load('assistant');
  assert.equal(await t.kernel.toolsFor(agent), []);
  assert.equal(states(t), { a: 'idle', b: 'idle' });
  assert.ok(t.kernel.service('mcp').status().every((s) => s.pid === undefined && s.ok));
});

test('only the servers an agent could use are started', async () => {
  t = await mcpKernel({ servers: { a: fixture(), b: fixture() } }, { agents: { assistant: { tools: ['a__echo', 'a__dotted_name'] } } });
  const agent = await t.kernel.agents.load('assistant');
  assert.equal((await t.kernel.toolsFor(agent)).map((x) => x.name).sort(), ['a__dotted_name', 'a__echo']);
  assert.equal(states(t), { a: 'ready', b: 'idle' });
});

test('servers start in parallel', async () => {
  t = await mcpKernel({ servers: { a: fixture('--slow-start', '2000'), b: fixture('--slow-start', '2000') } });
  const agent = await t.kernel.agents.load('assistant');
  const listing = t.kernel.toolsFor(agent);
  const mcp = t.kernel.service('mcp');
  // Both processes exist while both handshakes are still pending.
  await waitFor(() => mcp.status().every((s) => s.state === 'connecting' && s.pid !== undefined), 'both servers to be starting');
  const names = (await listing).map((x) => x.name);
  assert.ok(names.includes('a__echo') && names.includes('b__echo'));
});

test('eager: true starts every enabled server at init; a disabled one stays down and says why', async () => {
  t = await mcpKernel({ eager: true, servers: { a: fixture(), off: { ...fixture(), enabled: false } } });
  assert.equal(states(t), { a: 'ready', off: 'disabled' });
  const off = (await t.kernel.toolSourceStatus()).find((s) => s.name === 'off')!;
  assert.is(off.ok, false);
  assert.match(off.reason!, /disabled/);
  const error = await t.kernel.service('mcp').call('off', 'echo', { text: 'x' }).catch((e) => e);
  assert.is(error.code, 'ORYX_E_MCP_SERVER_DISABLED');
});

test('a tool name model APIs refuse is exposed with _ and still calls the original tool', async () => {
  const llm = scripted([{ toolCalls: [{ name: 'fx__dotted_name' }] }, (req) => ({ text: req.messages.at(-1)!.content })]);
  t = await mcpKernel({ servers: { fx: fixture() } }, { plugins: [llm] });
  const run = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(run.answer, 'dotted ok');
});

test('a schema with keywords the kernel does not use reaches the model unchanged, and the kernel validates against it', async () => {
  const llm = scripted([
    { toolCalls: [{ id: 'bad', name: 'fx__schema', args: { mode: 'medium' } }, { id: 'good', name: 'fx__schema', args: { mode: 'slow', tags: ['a'] } }] },
    { text: 'done' },
  ]);
  t = await mcpKernel({ servers: { fx: fixture() } }, { plugins: [llm], agents: { assistant: { tools: ['fx__schema'] } } });
  await t.service.process({ agent: 'assistant', message: 'go' });
  assert.equal(llm.requests[0]!.tools, [{ name: 'fx__schema', description: 'Return the arguments it got.', inputSchema: DISTINCTIVE_SCHEMA }]);
  const results = llm.requests[1]!.messages.filter((m) => m.role === 'tool');
  assert.match(results[0]!.content, /Invalid arguments for fx__schema: mode: must be one of "fast", "slow"/);
  assert.is(results[1]!.content, JSON.stringify({ mode: 'slow', tags: ['a'] }));
});

test('an unknown server is a clear error naming the declared ones', async () => {
  t = await mcpKernel({ servers: { fx: fixture() } });
  const error = await t.kernel.service('mcp').tools('nope').catch((e) => e);
  assert.is(error.code, 'ORYX_E_MCP_SERVER_UNKNOWN');
  assert.match(error.hint, /fx/);
});

test.run();
