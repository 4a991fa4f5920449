// A server that attacks its client (fixtures/malicious-server.mjs), over stdio and over
// Streamable HTTP: a catastrophic pattern, invalid schemas, a 50 MB result, 10,000 tools,
// terminal escapes. None of it may hang the process, flood the session or crash the loop.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scripted, type TestKernel } from '@oryxos/kernel/testing';
import type { ToolMessage } from '@oryxos/provider-spec';
import type { McpServerConfig } from '../src/index.ts';
import { mcpKernel, NODE } from './helpers.ts';

const MALICIOUS = path.join(import.meta.dirname, 'fixtures', 'malicious-server.mjs');
const stdio = (...flags: string[]): McpServerConfig => ({ command: NODE, args: [MALICIOUS, ...flags] });

let http: ChildProcess | undefined;
let t: TestKernel | undefined;
test.after.each(async () => { await t?.close(); t = undefined; });
test.after(() => { http?.kill(); });

/** The fixture over HTTP on a free port (started once). */
async function httpServer(): Promise<McpServerConfig> {
  http ??= spawn(NODE, [MALICIOUS, '--http', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const port = await new Promise<string>((resolve) => {
    let out = '';
    const read = (d: Buffer) => { out += d; const m = /listening (\d+)/.exec(out); if (m) { http!.stdout!.off('data', read); resolve(m[1]!); } };
    http!.stdout!.on('data', read);
  });
  return { url: `http://127.0.0.1:${port}/mcp` };
}

let httpConfig: Promise<McpServerConfig> | undefined;
const transports: [string, () => Promise<McpServerConfig>][] = [
  ['stdio', async () => stdio()],
  ['http', () => (httpConfig ??= httpServer())],
];

/** One run whose model makes `calls` in one response, then answers; returns the tool results the model saw. */
async function calls(server: McpServerConfig, list: { name: string; args: Record<string, unknown> }[]): Promise<ToolMessage[]> {
  const llm = scripted([{ toolCalls: list }, { text: 'done' }]);
  // One after the other: each case checks what the server does after the call before it.
  t = await mcpKernel({ servers: { evil: server } }, { plugins: [llm], agents: { assistant: { tools: ['*'], settings: { parallel_tools: false } } } });
  const run = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(run.stopReason, 'final', JSON.stringify(run.error));
  return llm.requests[1]!.messages.filter((m): m is ToolMessage => m.role === 'tool');
}

for (const [kind, server] of transports) {
  test(`${kind}: a catastrophic pattern is checked in linear time; invalid schemas leave only their tools out`, async () => {
    const [redos, good, bad] = await calls(await server(), [
      { name: 'evil__redos', args: { text: `${'a'.repeat(31)}!` } },
      { name: 'evil__redos', args: { text: 'aaaa' } },
      { name: 'evil__bad_required', args: {} },
    ]);
    assert.match(redos!.content, 'Invalid arguments for evil__redos: text: must match pattern "^(a+)+$"');
    assert.is(good!.content, 'matched 4 characters');
    assert.match(bad!.content, 'Unknown tool "evil__bad_required"');
    const status = t!.kernel.service('mcp').status()[0]!;
    assert.is(status.ok, true);
    assert.is(status.refused?.length, 2);
    assert.match(status.refused![0]!, 'tool "bad_required" of MCP server "evil" has an invalid input schema: required must be array');
    assert.match(status.refused![1]!, 'tool "bad_pattern" of MCP server "evil" has an invalid input schema: Invalid regular expression');
  });

  test(`${kind}: a 50 MB result is refused at the transport, the call fails with why, the server serves again`, async () => {
    const [huge, after] = await calls(await server(), [{ name: 'evil__huge', args: { mb: 50 } }, { name: 'evil__argv', args: {} }]);
    assert.is(huge!.isError, true);
    assert.match(huge!.content, 'the server sent a message of more than 10485760 bytes (limits.maxMessageBytes)');
    assert.ok(huge!.content.length < 1000);
    assert.match(after!.content, 'argv:');
  });

  test(`${kind}: a result under the message limit is cut to max_tool_output_chars for the model and the session`, async () => {
    const [big] = await calls(await server(), [{ name: 'evil__huge', args: { mb: 2 } }]);
    assert.ok(big!.content.length <= 20_000, `${big!.content.length}`);
    assert.match(big!.content, `of ${(2 * 1024 * 1024).toLocaleString('en-US')} characters over max_tool_output_chars`);
    const sessions = t!.kernel.service('sessions');
    const stored = await sessions.messages((await sessions.list()).items[0]!.id);
    assert.is(stored.find((s) => s.message.role === 'tool')!.message.content, big!.content);
  });
}

test('stdio: limits.maxTools counts what the agent\'s tools: list takes, not what the server offers; the hint names it', async () => {
  t = await mcpKernel({ servers: { many: stdio('--tools', '300') } }, {
    agents: { assistant: { tools: ['*'] }, picky: { tools: ['many__filler_1', 'many__filler_2', 'many__filler_299'] } },
  });
  // 300 tools, 3 of them listed: the agent gets the 3.
  const picky = await t.kernel.toolsFor(await t.kernel.agents.load('picky'));
  assert.equal(picky.map((x) => x.name).sort(), ['many__filler_1', 'many__filler_2', 'many__filler_299']);
  // Everything listed (*): 300 > 256, none, and the status says which limit and how to narrow it.
  assert.equal(await t.kernel.toolsFor(await t.kernel.agents.load('assistant')), []);
  const status = t.kernel.service('mcp').status()[0]!;
  assert.is(status.ok, true, 'the server itself is fine');
  assert.match(status.warning!, 'agent "assistant" gets none of the 300 tools of MCP server "many" its tools: list matches: that is more than limits.maxTools (256)');
  assert.match(status.warning!, 'raise limits.maxTools in mcp({ limits: { maxTools } })');
  await t.close();
  t = await mcpKernel({ servers: { many: stdio('--tools', '300') }, limits: { maxTools: 300 } });
  assert.is((await t.kernel.toolsFor(await t.kernel.agents.load('assistant'))).length, 300);
});

test('stdio: a page of 10,000 tools is read (bounded by the characters of the list), then limited per agent', async () => {
  t = await mcpKernel({ servers: { many: stdio('--tools', '10000') }, limits: { maxToolListChars: 5_000_000 } }, { agents: { assistant: { tools: ['many__filler_9999'] } } });
  const tools = await t.kernel.toolsFor(await t.kernel.agents.load('assistant'));
  assert.equal(tools.map((x) => x.name), ['many__filler_9999'], JSON.stringify(t.kernel.service('mcp').status()[0]));
  assert.is(t.kernel.service('mcp').status()[0]!.tools, 10_000);
});

test('stdio: a tool list over maxToolListChars is refused', async () => {
  t = await mcpKernel({ servers: { many: stdio('--tools', '100') }, limits: { maxToolListChars: 5_000 } });
  await t.kernel.toolsFor(await t.kernel.agents.load('assistant'));
  assert.match(t.kernel.service('mcp').status()[0]!.reason!, 'more than 5000 characters of JSON (limits.maxToolListChars)');
});

test('${VAR} values are secrets: masked in the server log, the status target and tool results', async () => {
  const secret = 'sk-test-0123456789abcdef';
  process.env.ORYX_HOSTILE_TOKEN = secret;
  try {
    const dir = await import('@oryxos/kernel/testing').then((m) => m.tempProject('mcp-secret-'));
    const { writeFile, mkdir } = await import('node:fs/promises');
    await mkdir(path.join(dir, '.oryxos'), { recursive: true });
    await writeFile(path.join(dir, '.oryxos', 'mcp_servers.yaml'), `servers:\n  evil:\n    command: ${NODE}\n    args: [${MALICIOUS}, --token, "\${ORYX_HOSTILE_TOKEN}", --home, "\${HOME}"]\n`);
    const llm = scripted([{ toolCalls: [{ name: 'evil__argv', args: {} }] }, { text: 'done' }]);
    t = await mcpKernel({}, { plugins: [llm], dir });
    await t.service.process({ agent: 'assistant', message: 'go' });
    const result = llm.requests[1]!.messages.at(-1)!.content;
    assert.match(result, '--token *** --home');
    assert.ok(result.includes(process.env.HOME!), 'a variable that only describes the machine is not masked');
    const status = t.kernel.service('mcp').status()[0]!;
    assert.not.match(status.target, secret);
    await t.close();
    t = undefined;
    const log = await readFile(status.log!, 'utf8');
    assert.match(log, 'argv:');
    assert.not.match(log, secret);
  } finally {
    delete process.env.ORYX_HOSTILE_TOKEN;
  }
});

test.run();
