// The mcp-server plugin's optional exposure (here, not in plugins/mcp-server/test: it needs the
// web plugin, whose built types its typecheck would meet first): OryxOS tools exposed directly,
// skills as prompts, sessions and memory as resources, log messages — through the SDK's own
// Client over Streamable HTTP served by the web plugin on loopback. SQLite, the audit trail, the
// approvals store and the memory files are real; the model is the kernel's scripted provider.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema, LoggingMessageNotificationSchema, ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema, type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { ChatRequest } from '@oryxos/provider-spec';
import type { Tool } from '@oryxos/kernel';
import { echoTool, scripted, testKernel, toolsPlugin, type TestKernel } from '@oryxos/kernel/testing';
import approvals from '@oryxos/plugin-approvals';
import audit from '@oryxos/plugin-audit';
import memory from '@oryxos/plugin-memory';
import sqlite from '@oryxos/plugin-sqlite';
import web from '@oryxos/plugin-web';
import mcpServer from '@oryxos/plugin-mcp-server';
import { RED_PIXEL } from './fixtures/mcp-reference.ts';

const ran: string[] = [];
const guarded: Tool = {
  name: 'guarded', description: 'Writes a file; needs approval.', source: 'plugin', approval: 'always',
  inputSchema: { type: 'object', properties: { file: { type: 'string' } }, required: ['file'] },
  async execute(args) { ran.push(String(args.file)); return `created ${args.file}`; },
};
const fetcher: Tool = {
  name: 'fetcher', description: 'Reaches a host the sandbox does not allow.', source: 'plugin',
  inputSchema: { type: 'object', properties: {} },
  actions: () => [{ kind: 'http', method: 'GET', url: 'https://example.com/' }],
  async execute() { ran.push('fetched'); return 'fetched'; },
};
const media: Tool = {
  name: 'media', description: 'Returns a picture and a sound.', source: 'plugin', inputSchema: { type: 'object', properties: {} },
  async execute() {
    return { content: 'a picture and a sound', isError: false, parts: [
      { type: 'image', mediaType: 'image/png', data: RED_PIXEL }, { type: 'file', mediaType: 'audio/wav', data: 'UklGRg==' }, { type: 'file', mediaType: 'application/pdf', data: 'JVBERg==', name: 'report.pdf' },
    ] };
  },
};
const broken: Tool = {
  name: 'broken', description: 'Always fails.', source: 'plugin', inputSchema: { type: 'object', properties: {} },
  async execute() { throw new Error('it broke'); },
};

const secret: Tool = {
  name: 'secret', description: 'The agent may use it; it is not exposed.', source: 'plugin', inputSchema: { type: 'object', properties: {} },
  async execute() { ran.push('secret'); return 'secret'; },
};

const slow: Tool = {
  name: 'slow', description: 'Takes a while.', source: 'plugin', inputSchema: { type: 'object', properties: {} },
  async execute() { await new Promise((resolve) => setTimeout(resolve, 400)); ran.push('slow'); return 'slow done'; },
};

const step = (req: ChatRequest) => ({ text: `turns: ${req.messages.filter((m) => m.role === 'user').length}` });

let t: TestKernel;
let url: string;
const clients: Client[] = [];

test.before(async () => {
  t = await testKernel({
    plugins: [
      sqlite(), audit(), approvals(), memory(), scripted(Array.from({ length: 20 }, () => step)), toolsPlugin(echoTool(), guarded, fetcher, media, broken, secret, slow), web({ auth: 'none' }),
      mcpServer({ agents: ['assistant'], http: true, tools: ['echo', 'guarded', 'fetcher', 'media', 'broken', 'slow'], prompts: ['review'], resources: ['sessions', 'memory'] }),
    ],
    agents: { assistant: { tools: ['echo', 'guarded', 'fetcher', 'media', 'broken', 'secret', 'slow'] }, other: { tools: [] } },
  });
  const skills = path.join(t.dir, '.oryxos', 'agents', 'assistant', 'skills');
  await mkdir(skills, { recursive: true });
  await writeFile(path.join(skills, 'review.md'), '---\ndescription: Review a session\narguments:\n  - { name: focus, required: true, values: [security, style] }\n  - { name: session, resource: true }\n---\nReview it for {{focus}}.\n\n![pixel](pixel.png) and ![outside](../../../../outside.png) and ![linked](escape.png)\n');
  await writeFile(path.join(skills, 'pixel.png'), Buffer.from(RED_PIXEL, 'base64'));
  // A link in the folder to a file outside it is no way out.
  await writeFile(path.join(t.dir, 'outside.png'), Buffer.from(RED_PIXEL, 'base64'));
  await symlink(path.join(t.dir, 'outside.png'), path.join(skills, 'escape.png'));
  url = (await t.kernel.service('web').listen({ port: 0 })).url;
});
test.after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await t.close();
});

const elicited: string[] = [];
async function connect(options: { elicit?: 'approve' | 'decline' } = {}): Promise<Client> {
  const client = new Client({ name: 'exposure-client', version: '2.0.0' }, { capabilities: options.elicit ? { elicitation: { form: {} } } : {} });
  if (options.elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicited.push(request.params.message);
      return options.elicit === 'approve' ? { action: 'accept', content: { decision: 'approve' } } : { action: 'decline' };
    });
  }
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}
const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
const textOf = (r: { contents: object[] }) => String((r.contents[0] as { text?: string }).text);

test('listed: the agent tool and exactly the exposed tools, each with its own schema; a tool the agent may use but not exposed is not found', async () => {
  const client = await connect();
  const tools = (await client.listTools()).tools;
  assert.equal(tools.map((x) => x.name), ['ask_assistant', 'echo', 'guarded', 'fetcher', 'media', 'broken', 'slow']);
  assert.equal(tools.find((x) => x.name === 'echo')!.inputSchema, echoTool().inputSchema);
  const unknown = await client.callTool({ name: 'secret', arguments: {} }).then(() => 'answered', (e: Error) => e.message);
  assert.match(unknown, /Tool secret not found/);
  assert.not.ok(ran.includes('secret'));
});

test('a call of an exposed tool is a run of the tool agent: committed, audited, tagged, no model call', async () => {
  const client = await connect();
  const r = await client.callTool({ name: 'echo', arguments: { text: 'direct' } }) as CallToolResult;
  assert.equal([text(r), r.isError ?? false], ['echo: direct', false]);
  const [session] = (await t.kernel.service('sessions').list({ tag: 'mcp-tool:echo' })).items;
  assert.ok(session, 'a session tagged mcp-tool:echo');
  assert.ok(session!.tags?.includes('mcp-client:exposure-client@2.0.0'), String(session!.tags));
  const trace = await t.kernel.service('audit').sessionTrace(session!.id);
  assert.equal(trace.toolInvocations.map((row) => [row.tool, row.status]), [['echo', 'ok']]);
  assert.equal(trace.llmCalls, [], 'no model call');
  const bad = await client.callTool({ name: 'echo', arguments: { text: 5 } }) as CallToolResult;
  assert.equal([bad.isError, /^Invalid arguments for echo/.test(text(bad))], [true, true]);
  const failed = await client.callTool({ name: 'broken', arguments: {} }) as CallToolResult;
  assert.equal([failed.isError, text(failed)], [true, 'broken failed: it broke']);
});

test('content: image parts as image, audio as audio, another file as an embedded blob resource', async () => {
  const client = await connect();
  const r = await client.callTool({ name: 'media', arguments: {} }) as CallToolResult;
  assert.equal(r.content.map((c) => c.type), ['text', 'image', 'audio', 'resource']);
  assert.equal(r.content[1], { type: 'image', mimeType: 'image/png', data: RED_PIXEL });
  assert.equal(r.content[3], { type: 'resource', resource: { uri: 'oryx://tool-results/media/3', mimeType: 'application/pdf', blob: 'JVBERg==' } });
});

test('the sandbox judges an exposed tool as for the model: denied, audited, not run', async () => {
  const client = await connect();
  const r = await client.callTool({ name: 'fetcher', arguments: {} }) as CallToolResult;
  assert.is(r.isError, true);
  assert.match(text(r), /^Denied by the sandbox/);
  assert.not.ok(ran.includes('fetched'));
  const [session] = (await t.kernel.service('sessions').list({ tag: 'mcp-tool:fetcher' })).items;
  const trace = await t.kernel.service('audit').sessionTrace(session!.id);
  assert.equal(trace.toolInvocations.map((row) => row.status), ['denied']);
});

test('approvals: through elicitation the call runs; declined it does not; without elicitation it waits and says how to approve', async () => {
  const yes = await connect({ elicit: 'approve' });
  const approved = await yes.callTool({ name: 'guarded', arguments: { file: 'a' } }) as CallToolResult;
  assert.equal([text(approved), ran.includes('a')], ['created a', true]);
  assert.match(elicited[0]!, /^You asked to call guarded \(as the OryxOS agent assistant\)\.\n.*"file": "a"/s);
  const no = await connect({ elicit: 'decline' });
  const declined = await no.callTool({ name: 'guarded', arguments: { file: 'b' } }) as CallToolResult;
  assert.is(declined.isError, true);
  assert.not.ok(ran.includes('b'));

  const plain = await connect();
  const waiting = await plain.callTool({ name: 'guarded', arguments: { file: 'c' } }) as CallToolResult;
  assert.is(waiting.isError, true);
  assert.match(text(waiting), /waits for a person's approval.*Nothing was approved and the call has not run.*`oryx approvals approve [0-9a-f]{8}`/s);
  assert.not.ok(ran.includes('c'), 'never approved by itself');
  const meta = waiting._meta as Record<string, string>;
  await t.kernel.service('approvals').decide(meta['oryxos/approvalId']!, { decision: 'approve', by: 'cli:test' });
  const continued = await t.kernel.runs.continue(meta['oryxos/runId']!);
  assert.equal([continued.stopReason, continued.toolResult?.content, ran.includes('c')], ['final', 'created c', true]);
  const read = await plain.readResource({ uri: `oryx://sessions/${meta['oryxos/sessionId']}` });
  assert.match(textOf(read), /created c/, 'its result is in the session');
});

test('log messages: none before logging/setLevel; then the run\'s events at or above the level', async () => {
  const client = await connect();
  const logs: { level: string; data: unknown }[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push({ level: n.params.level, data: n.params.data }); });
  await client.callTool({ name: 'echo', arguments: { text: 'quiet' } });
  assert.equal(logs, []);
  await client.setLoggingLevel('info');
  await client.callTool({ name: 'echo', arguments: { text: 'loud' } });
  assert.equal(logs.map((l) => l.data), ['calling echo', 'echo done']);
  logs.length = 0;
  await client.setLoggingLevel('warning');
  await client.callTool({ name: 'echo', arguments: { text: 'quiet again' } });
  await client.callTool({ name: 'broken', arguments: {} });
  assert.equal(logs, [{ level: 'warning', data: 'broken failed' }]);
});

test('resources: the exposed agent\'s sessions (not another agent\'s), its memory, subscriptions to a session', async () => {
  const client = await connect();
  const asked = await client.callTool({ name: 'ask_assistant', arguments: { message: 'hello' } }) as CallToolResult;
  const sessionId = (asked.structuredContent as { sessionId: string }).sessionId;
  const listed = (await client.listResources()).resources.map((r) => r.uri);
  assert.ok(listed.includes(`oryx://sessions/${sessionId}`), listed.join(', '));
  assert.ok(listed.includes('oryx://memory/assistant'));
  assert.equal((await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate), ['oryx://sessions/{id}', 'oryx://memory/{agent}']);
  const completed = await client.complete({ ref: { type: 'ref/resource', uri: 'oryx://sessions/{id}' }, argument: { name: 'id', value: sessionId.slice(0, 6) } });
  assert.ok(completed.completion.values.includes(sessionId), JSON.stringify(completed));
  assert.equal((await client.complete({ ref: { type: 'ref/resource', uri: 'oryx://memory/{agent}' }, argument: { name: 'agent', value: 'as' } })).completion.values, ['assistant']);
  const read = JSON.parse(textOf(await client.readResource({ uri: `oryx://sessions/${sessionId}` })));
  assert.equal([read.agent, read.messages.map((m: { role: string }) => m.role)], ['assistant', ['user', 'assistant']]);

  const other = await t.kernel.runs.process({ agent: 'other', message: 'private' });
  assert.match(await client.readResource({ uri: `oryx://sessions/${other.sessionId}` }).then(() => 'read', (e: Error) => e.message), /not found|No resource/i);

  await t.kernel.service('memory').save('assistant', 'The user likes tea.', 'core');
  assert.match(textOf(await client.readResource({ uri: 'oryx://memory/assistant' })), /The user likes tea\./);
  assert.match(await client.readResource({ uri: 'oryx://memory/other' }).then(() => 'read', (e: Error) => e.message), /not found|No resource/i);

  const updates: string[] = [];
  let listChanged = 0;
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { updates.push(n.params.uri); });
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => { listChanged++; });
  assert.match(await client.subscribeResource({ uri: 'oryx://nothing/here' }).then(() => 'subscribed', (e: Error) => e.message), /No resource oryx:\/\/nothing\/here/);
  await client.subscribeResource({ uri: `oryx://sessions/${sessionId}` });
  await client.callTool({ name: 'ask_assistant', arguments: { message: 'again', session: sessionId } });
  for (let i = 0; i < 50 && updates.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(updates, [`oryx://sessions/${sessionId}`]);
  assert.ok(listChanged >= 1, 'the list changed');
  const seen = listChanged;
  await t.kernel.runs.process({ agent: 'other', message: 'not exposed' });
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.is(listChanged, seen, 'a run of an agent that is not exposed changes nothing listed');
  await client.unsubscribeResource({ uri: `oryx://sessions/${sessionId}` });
  await client.callTool({ name: 'ask_assistant', arguments: { message: 'once more', session: sessionId } });
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.is(updates.length, 1, 'no update after unsubscribe');
});

test('prompts: a skill with its arguments filled, its image, an embedded resource; completions from values', async () => {
  const client = await connect();
  const prompts = (await client.listPrompts()).prompts;
  assert.equal(prompts.map((p) => [p.name, p.description, p.arguments?.map((a) => [a.name, a.required])]), [['review', 'Review a session', [['focus', true], ['session', false]]]]);
  const asked = await client.callTool({ name: 'ask_assistant', arguments: { message: 'hi' } }) as CallToolResult;
  const uri = `oryx://sessions/${(asked.structuredContent as { sessionId: string }).sessionId}`;
  const got = await client.getPrompt({ name: 'review', arguments: { focus: 'security', session: uri } });
  assert.equal(got.messages.map((m) => m.content.type), ['text', 'image', 'resource'], 'the links out of the skill folder stay text');
  assert.match((got.messages[0]!.content as { text: string }).text, /^Review it for security\./);
  assert.is((got.messages[1]!.content as { data: string }).data, RED_PIXEL);
  assert.is((got.messages[2]!.content as { resource: { uri: string } }).resource.uri, uri);
  const bad = await client.getPrompt({ name: 'review', arguments: { focus: 'x', session: 'oryx://nothing' } }).then(() => 'got', (e: Error) => e.message);
  assert.match(bad, /ORYX_E_MCPSERVE_PROMPT|not a resource of this server/);
  const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'focus', value: 'se' } });
  assert.equal(completion.completion.values, ['security']);
});

/** The SSE events of a response body as they come: `{ id, data }`. */
async function* events(body: ReadableStream<Uint8Array>): AsyncGenerator<{ id?: string; data: string }> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const id = /^id: (.*)$/m.exec(block)?.[1];
      yield { ...(id ? { id } : {}), data: block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n') };
    }
  }
}

test('a call whose connection drops goes on, and the client reconnecting with Last-Event-ID gets its result', async () => {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  const init = await fetch(`${url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) });
  const session = init.headers.get('mcp-session-id')!;
  await init.text();
  const withSession = { ...headers, 'mcp-session-id': session };
  assert.is((await fetch(`${url}/mcp`, { method: 'POST', headers: withSession, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).status, 202);
  const drop = new AbortController();
  const call = await fetch(`${url}/mcp`, { method: 'POST', headers: withSession, signal: drop.signal, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'slow', arguments: {} } }) });
  const first = (await events(call.body!).next()).value!;
  assert.ok(first.id, 'a priming event with an id');
  assert.is(first.data, '');
  drop.abort();
  await new Promise((resolve) => setTimeout(resolve, 600));
  assert.ok(ran.includes('slow'), 'the call went on');
  const resumed = await fetch(`${url}/mcp`, { headers: { ...withSession, accept: 'text/event-stream', 'last-event-id': first.id! } });
  assert.is(resumed.status, 200);
  let result: { id?: number; result?: { content: { text: string }[] } } | undefined;
  for await (const e of events(resumed.body!)) {
    const message = e.data ? JSON.parse(e.data) : {};
    if (message.id === 7) { result = message; break; }
  }
  assert.is(result?.result?.content[0]?.text, 'slow done');
  await fetch(`${url}/mcp`, { method: 'DELETE', headers: withSession });
});

test('doctor: the exposed tools, prompts and resources; a tool outside the allow-list, an unknown skill fail with their codes', async () => {
  const lines = await t.kernel.service('mcpServer').check();
  const by = Object.fromEntries(lines.map((l) => [l.check, l]));
  assert.equal([by['mcp tools']?.status, by['mcp prompts']?.status, by['mcp resources']?.detail], ['ok', 'ok', 'read-only: sessions (oryx://sessions/{id}), memory (oryx://memory/{agent})']);
  const k = await testKernel({
    plugins: [scripted([]), toolsPlugin(echoTool()), mcpServer({ agents: ['assistant'], tools: ['echo'], prompts: ['nope'] })],
    agents: { assistant: { tools: [] } },
  });
  try {
    const bad = Object.fromEntries((await k.kernel.service('mcpServer').check()).map((l) => [l.check, l]));
    assert.equal([bad['mcp tools']?.status, bad['mcp tools']?.code, bad['mcp prompts']?.code], ['fail', 'ORYX_E_MCPSERVE_UNKNOWN_TOOL', 'ORYX_E_MCPSERVE_UNKNOWN_PROMPT']);
    const served = await k.kernel.service('mcpServer').serveStdio().then(() => 'served', (e: { code?: string }) => e.code);
    assert.is(served, 'ORYX_E_MCPSERVE_UNKNOWN_TOOL', 'the server does not start with a tool the agent may not use');
  } finally {
    await k.close();
  }
});

test.run();
