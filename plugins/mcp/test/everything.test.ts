// @modelcontextprotocol/server-everything, over stdio and over Streamable HTTP.
import { spawn, type ChildProcess } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { scripted, type TestKernel } from '@oryxos/kernel/testing';
import { EVERYTHING, NODE, freePort, mcpKernel, waitFor } from './helpers.ts';

const stdio = { command: NODE, args: [EVERYTHING, 'stdio'] };

/** What the server itself says, through a plain SDK client: the reference to compare with. */
let reference: Client;
test.before(async () => {
  reference = new Client({ name: 'reference', version: '1.0.0' });
  await reference.connect(new StdioClientTransport({ ...stdio, stderr: 'ignore' }));
});
test.after(async () => { await reference.close(); });

/** server-everything in Streamable HTTP mode on a free loopback port. */
async function httpServer(port?: number): Promise<{ url: string; port: number; child: ChildProcess; stop(): Promise<void> }> {
  const p = port ?? await freePort();
  const child = spawn(NODE, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(p) }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => { err += d; });
  await waitFor(() => err.includes('listening') || child.exitCode !== null, 'server-everything to listen');
  if (child.exitCode !== null) throw new Error(`server-everything exited: ${err}`);
  return {
    url: `http://127.0.0.1:${p}/mcp`, port: p, child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

let t: TestKernel | undefined;
test.after.each(async () => { await t?.close(); t = undefined; });

test('stdio: tools are listed as everything__<tool>, source mcp, schemas exactly as the server sent them', async () => {
  t = await mcpKernel({ servers: { everything: stdio } }, { agents: { assistant: { tools: ['everything__*'] } } });
  const agent = await t.kernel.agents.load('assistant');
  const tools = await t.kernel.toolsFor(agent);
  const refTools = (await reference.listTools()).tools;
  assert.ok(refTools.length > 5);
  for (const ref of refTools) {
    const mine = tools.find((x) => x.name === `everything__${ref.name}`);
    assert.ok(mine, `everything__${ref.name} is offered`);
    assert.is(mine!.source, 'mcp');
    assert.is(mine!.plugin, 'mcp');
    assert.equal(mine!.inputSchema, ref.inputSchema);
  }
  assert.is(tools.length, refTools.length);
});

test('stdio: a scripted model calls an MCP tool in a full run and gets its result', async () => {
  const llm = scripted([
    { toolCalls: [{ id: 'c1', name: 'everything__get-sum', args: { a: 2, b: 40 } }] },
    (req) => ({ text: `the tool said: ${req.messages.at(-1)!.content}` }),
  ]);
  t = await mcpKernel({ servers: { everything: stdio } }, { plugins: [llm] });
  const run = await t.service.process({ agent: 'assistant', message: 'add 2 and 40' });
  assert.is(run.stopReason, 'final');
  assert.is(run.answer, 'the tool said: The sum of 2 and 40 is 42.');
  const offered = llm.requests[0]!.tools.find((x) => x.name === 'everything__get-sum');
  const ref = (await reference.listTools()).tools.find((x) => x.name === 'get-sum')!;
  assert.equal(offered!.inputSchema, ref.inputSchema);
  assert.equal(llm.requests[1]!.messages.at(-1), { role: 'tool', toolCallId: 'c1', name: 'everything__get-sum', content: 'The sum of 2 and 40 is 42.' });
});

test('stdio: an MCP isError result is an error result; images are summarised', async () => {
  t = await mcpKernel({ servers: { everything: stdio } });
  const mcp = t.kernel.service('mcp');
  const bad = await mcp.call('everything', 'echo', {});
  assert.is(bad.isError, true);
  assert.match(bad.content, /Input validation error/);
  const image = await mcp.call('everything', 'get-tiny-image', {});
  const raw = await reference.callTool({ name: 'get-tiny-image', arguments: {} });
  const part = (raw.content as { type: string; data?: string; mimeType?: string }[]).find((p) => p.type === 'image')!;
  assert.ok(image.content.includes(`[image: ${part.mimeType}, ${Buffer.byteLength(part.data!, 'base64')} bytes]`));
  assert.ok(image.content.includes("Here's the image you requested:"));
  assert.not.ok(image.content.includes(part.data!.slice(0, 40)));
  assert.is(image.isError, false);
});

test('Streamable HTTP: list, call and error result against server-everything over loopback', async () => {
  const server = await httpServer();
  try {
    const llm = scripted([
      { toolCalls: [{ id: 'c1', name: 'remote__get-sum', args: { a: 1, b: 2 } }] },
      (req) => ({ text: String(req.messages.at(-1)!.content) }),
    ]);
    t = await mcpKernel({ servers: { remote: { url: server.url, headers: { 'X-Test': 'yes' } } } }, { plugins: [llm] });
    const agent = await t.kernel.agents.load('assistant');
    const names = (await t.kernel.toolsFor(agent)).map((x) => x.name);
    assert.ok(names.includes('remote__echo') && names.includes('remote__get-sum'));
    const run = await t.service.process({ agent: 'assistant', message: 'add' });
    assert.is(run.answer, 'The sum of 1 and 2 is 3.');
    const bad = await t.kernel.service('mcp').call('remote', 'echo', {});
    assert.is(bad.isError, true);
    assert.match(bad.content, /Input validation error/);
    assert.equal(t.kernel.service('mcp').status()[0]!.transport, 'http');
  } finally {
    await t?.close();
    t = undefined;
    await server.stop();
  }
});

test('Streamable HTTP: a server that goes away gives a retryable result, and is reconnected once it is back', async () => {
  let server = await httpServer();
  try {
    t = await mcpKernel({ servers: { remote: { url: server.url } } });
    const mcp = t.kernel.service('mcp');
    assert.is((await mcp.call('remote', 'echo', { message: 'one' })).content, 'Echo: one');
    await server.stop();
    const lost = await mcp.call('remote', 'echo', { message: 'two' });
    assert.is(lost.isError, true);
    assert.is(lost.retryable, true);
    assert.is(mcp.status()[0]!.state, 'closed');
    server = await httpServer(server.port);
    assert.is((await mcp.call('remote', 'echo', { message: 'three' })).content, 'Echo: three');
  } finally {
    await t?.close();
    t = undefined;
    await server.stop();
  }
});

test.run();
