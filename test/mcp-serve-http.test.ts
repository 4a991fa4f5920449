// The mcp-server plugin's tests that need the web plugin (here, not in plugins/mcp-server/test:
// its typecheck would meet the web plugin's built types before its sources).
// Streamable HTTP mounted in the web plugin's server (in this process, on loopback): the SDK's
// own Client with its StreamableHTTPClientTransport, behind the web's token, Host and Origin
// checks. The model is the kernel's scripted provider; SQLite, the approvals store and the web
// server are real.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ChatRequest } from '@oryxos/provider-spec';
import { echoTool, scripted, testKernel, toolsPlugin, type TestKernel } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import approvals from '@oryxos/plugin-approvals';
import web from '@oryxos/plugin-web';
import type { Tool } from '@oryxos/kernel';
import mcpServer from '@oryxos/plugin-mcp-server';

const TOKEN = 'a-token-of-sixteen-chars-or-more';
const ran: string[] = [];

const step = (req: ChatRequest) => {
  const last = req.messages.at(-1)!;
  if (last.role === 'tool') return { text: `model got: ${last.content}` };
  const text = String(last.content);
  if (text === 'use echo') return { toolCalls: [{ name: 'echo', args: { text: 'over http' } }] };
  if (text === 'write') return { toolCalls: [{ name: 'guarded', args: { file: 'x' } }] };
  if (text === 'slow') return { delayMs: 60_000, text: 'too late' };
  return { text: `turns: ${req.messages.filter((m) => m.role === 'user').length}` };
};

const guarded: Tool = {
  name: 'guarded', description: 'Needs approval.', source: 'plugin', approval: 'always',
  inputSchema: { type: 'object', properties: { file: { type: 'string' } } },
  async execute(args) { ran.push(String(args.file)); return `created ${args.file}`; },
};

let t: TestKernel;
let url: string;
const clients: Client[] = [];

test.before(async () => {
  t = await testKernel({
    plugins: [sqlite(), approvals(), scripted(Array.from({ length: 50 }, () => step)), toolsPlugin(echoTool(), guarded), web({ token: TOKEN }), mcpServer({ agents: ['assistant'], http: true })],
    agents: { assistant: { tools: ['echo', 'guarded'] } },
  });
  url = (await t.kernel.service('web').listen({ port: 0 })).url;
});
test.after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await t.close();
});

async function connect(options: { token?: string; elicit?: boolean } = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: options.token === undefined ? { authorization: `Bearer ${TOKEN}` } : options.token ? { authorization: `Bearer ${options.token}` } : {} },
  });
  const client = new Client({ name: 'http-test-client', version: '1.0.0' }, { capabilities: options.elicit ? { elicitation: { form: {} } } : {} });
  if (options.elicit) client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { decision: 'approve' } }));
  clients.push(client);
  await client.connect(transport);
  return client;
}

const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

test('without the token, or with another, the endpoint refuses (the web\'s auth)', async () => {
  for (const token of ['', 'not-the-token-but-long-enough']) {
    await connect({ token }).then(() => assert.unreachable(`connected with token "${token}"`), (error: Error) => assert.match(String(error), /401|Unauthorized|token/i));
  }
});

test('a page of another origin cannot post to it (the web\'s Origin check)', async () => {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: 'http://evil.example' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'evil', version: '1' } } }),
  });
  assert.is(response.status, 403);
});

test('a call over HTTP: the agent uses a tool and answers, with progress; the session goes on; an unknown MCP session is 404', async () => {
  const client = await connect();
  assert.equal((await client.listTools()).tools.map((x) => x.name), ['ask_assistant']);
  const progress: string[] = [];
  const first = await client.callTool({ name: 'ask_assistant', arguments: { message: 'use echo' } }, undefined, { onprogress: (p) => { progress.push(String(p.message)); } }) as CallToolResult;
  assert.is(text(first), 'model got: echo: over http');
  assert.equal(progress, ['thinking (model call 1)', 'calling echo', 'echo done', 'thinking (model call 2)']);
  const session = (first.structuredContent as { sessionId: string }).sessionId;
  const again = await client.callTool({ name: 'ask_assistant', arguments: { message: 'more', session } }) as CallToolResult;
  assert.is(text(again), 'turns: 2');
  const stale = await fetch(`${url}/mcp`, {
    method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'no-such-session' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  assert.is(stale.status, 404);
});

test('over HTTP: an approval through elicitation runs the call; cancelling aborts the run', async () => {
  const client = await connect({ elicit: true });
  const approved = await client.callTool({ name: 'ask_assistant', arguments: { message: 'write' } }) as CallToolResult;
  assert.is(text(approved), 'model got: created x');
  assert.equal(ran, ['x']);

  const controller = new AbortController();
  const started = Date.now();
  await client.callTool({ name: 'ask_assistant', arguments: { message: 'slow' } }, undefined, { signal: controller.signal, onprogress: () => controller.abort('stop') })
    .then(() => assert.unreachable('the cancelled call answered'), () => {});
  const records = t.kernel.service('runRecords');
  let stops: string[] = [];
  for (let i = 0; i < 100; i++) {
    stops = (await records.list({ limit: 20 })).map((r) => r.stopReason ?? 'running');
    if (stops.includes('aborted')) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.ok(stops.includes('aborted'), stops.join(', '));
  assert.ok(Date.now() - started < 20_000);
});

test('an MCP session idle for idleMs is closed when another starts (404 after); one whose call is going on is kept', async () => {
  const k = await testKernel({
    plugins: [scripted(Array.from({ length: 20 }, () => step)), web({ auth: 'none' }), mcpServer({ agents: ['assistant'], http: { path: '/agents/mcp', idleMs: 1000 } })],
  });
  try {
    const base = (await k.kernel.service('web').listen({ port: 0 })).url;
    const open = async () => {
      const transport = new StreamableHTTPClientTransport(new URL(`${base}/agents/mcp`));
      const client = new Client({ name: 'idle-test', version: '1' });
      clients.push(client);
      await client.connect(transport);
      return { client, id: transport.sessionId! };
    };
    const status = async (id: string) => (await fetch(`${base}/agents/mcp`, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }),
    })).status;
    const idle = await open();
    const working = await open();
    const controller = new AbortController();
    const slow = working.client.callTool({ name: 'ask_assistant', arguments: { message: 'slow' } }, undefined, { signal: controller.signal }).catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 1300));
    await open();
    assert.is(await status(idle.id), 404, 'the idle session was kept');
    assert.is(await status(working.id), 200, 'the session with a call going on was closed');
    controller.abort('done');
    await slow;
  } finally {
    await k.close();
  }
});

test.run();
