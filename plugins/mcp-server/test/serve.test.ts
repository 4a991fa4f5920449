// End to end: the SDK's own Client spawns the built CLI (`node bin/run.js mcp serve`, build first:
// npm run build) over stdio in a temp project, as Claude Desktop or Claude Code would launch it.
// The model is the kernel's scripted provider (no LLM here); every other part is real: SQLite,
// the audit, the approvals store, the CLI, the SDK on both ends.
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type CallToolResult, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { runOryx, tempProject } from '@oryxos/kernel/testing';

const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');
const dirs: string[] = [];
const clients: Client[] = [];
test.after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

test.before(() => {
  for (const built of ['plugins/mcp-server/dist/index.js', 'plugins/mcp-server/dist/commands/mcp/serve.js', 'plugins/mcp-server/oclif.manifest.json']) {
    if (!existsSync(path.join(repoRoot, built))) throw new Error(`${built} is missing: run \`npm run build\` first`);
  }
});

/**
 * A project whose model answers from what it is sent: "use echo" calls the echo tool; "write X"
 * calls `guarded` (approval: always), which creates the file X in the project; "slow" takes a
 * minute (honouring the abort); a tool result is answered `model got: …`; anything else is
 * answered with the number of user turns the session holds, so a continued session shows.
 */
async function project(expose = "{ assistant: { description: 'The test assistant.' } }", more = ''): Promise<string> {
  const dir = await tempProject('oryx-mcpserve-');
  dirs.push(dir);
  await writeFile(path.join(dir, 'oryx.config.ts'), `import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from '@oryxos/kernel';
import { allowAll, echoTool, scripted, toolsPlugin } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '@oryxos/plugin-audit';
import approvals from '@oryxos/plugin-approvals';
import mcpServer from '@oryxos/plugin-mcp-server';

const step = (req) => {
  const last = req.messages.at(-1);
  if (last.role === 'tool') return { text: 'model got: ' + last.content };
  const text = String(last.content);
  if (text === 'use echo') return { toolCalls: [{ name: 'echo', args: { text: 'from the agent' } }] };
  if (text.startsWith('write ')) return { toolCalls: [{ name: 'guarded', args: { file: text.slice(6) } }] };
  if (text === 'slow') return { delayMs: 60000, text: 'too late' };
  if (text === 'ask me') return { toolCalls: [{ name: 'ask_name', args: {} }] };
  return { text: 'turns: ' + req.messages.filter((m) => m.role === 'user').length };
};

const guarded = {
  name: 'guarded', description: 'Creates a file in the project.', source: 'plugin', approval: 'always', parallel: false,
  inputSchema: { type: 'object', properties: { file: { type: 'string' } }, required: ['file'] },
  async execute(args) { writeFileSync(path.join(${JSON.stringify(dir)}, String(args.file)), 'ran'); return 'created ' + args.file; },
};

// A tool that asks the person a question of its own (as an MCP server's elicitation reaches OryxOS).
const askName = {
  name: 'ask_name', description: 'Asks the person their name.', source: 'plugin',
  inputSchema: { type: 'object', properties: {} },
  async execute(_args, ctx) {
    const answer = await ctx.ask({ kind: 'input', source: 'ask_name', message: 'Your name?', schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
    return answer && 'action' in answer ? answer.action + ' ' + JSON.stringify(answer.content ?? null) : 'nobody answered';
  },
};

export default defineConfig({
  plugins: [
    allowAll(), sqlite(), audit(), approvals(),
    scripted(Array.from({ length: 100 }, () => step)),
    toolsPlugin(echoTool(), guarded, askName),
    mcpServer({ agents: ${expose}${more} }),
  ],
});
`);
  await mkdir(path.join(dir, '.oryxos', 'agents', 'assistant'), { recursive: true });
  await writeFile(path.join(dir, '.oryxos', 'agents', 'assistant', 'AGENT.md'), '---\ndescription: test\ntools: [echo, guarded, ask_name]\n---\nYou are a test agent.\n');
  return dir;
}

/** An SDK client connected to `oryx mcp serve` in `dir`; `elicit` answers elicitation (and declares the capability). */
async function connect(dir: string, elicit?: (message: string) => ElicitResult, launch: { cwd?: string; args?: string[] } = {}): Promise<{ client: Client; stderr: () => string; asked: string[] }> {
  const transport = new StdioClientTransport({
    command: process.execPath, args: [path.join(repoRoot, 'bin', 'run.js'), 'mcp', 'serve', ...launch.args ?? []], cwd: launch.cwd ?? dir, stderr: 'pipe',
    env: { ...process.env as Record<string, string>, NO_COLOR: '1' },
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); });
  const client = new Client({ name: 'oryx-test-client', version: '9.8.7' }, { capabilities: elicit ? { elicitation: { form: {} } } : {} });
  const asked: string[] = [];
  if (elicit) client.setRequestHandler(ElicitRequestSchema, async (request) => { asked.push(request.params.message); return elicit(request.params.message); });
  clients.push(client);
  await client.connect(transport);
  return { client, stderr: () => stderr, asked };
}

const json = async (dir: string, args: string[]) => {
  const r = await runOryx([...args, '--json'], { cwd: dir });
  assert.is(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
};

const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

test('tools/list: one ask_<agent> tool with its input and output schemas', async () => {
  const { client } = await connect(await project());
  const { tools } = await client.listTools();
  assert.equal(tools.map((t) => t.name), ['ask_assistant']);
  const [tool] = tools;
  assert.is(tool!.description, 'The test assistant.');
  assert.equal(tool!.inputSchema.required, ['message']);
  assert.equal(Object.keys(tool!.inputSchema.properties ?? {}).sort(), ['message', 'session']);
  assert.equal((tool!.outputSchema as { required: string[] }).required.sort(), ['answer', 'runId', 'sessionId', 'stopReason', 'usage']);
  assert.is(client.getServerVersion()?.name, 'oryxos');
});

test('a call runs the agent, which uses a tool and answers; progress while it works; the session goes on; sessions, runs and audit show it', async () => {
  const dir = await project();
  const { client } = await connect(dir);
  const progress: string[] = [];
  const first = await client.callTool({ name: 'ask_assistant', arguments: { message: 'use echo' } }, undefined, {
    onprogress: (p) => { progress.push(String(p.message)); },
  }) as CallToolResult;
  assert.is(first.isError, undefined);
  assert.is(text(first), 'model got: echo: from the agent');
  const out = first.structuredContent as { answer: string; sessionId: string; runId: string; stopReason: string; usage: { inputTokens: number; outputTokens: number } };
  assert.is(out.answer, 'model got: echo: from the agent');
  assert.is(out.stopReason, 'final');
  assert.ok(out.usage.inputTokens > 0 && out.usage.outputTokens > 0);
  // In order, from the first. The SDK client runs a notification's handler a microtask later but
  // a response at once, dropping the handler: whatever progress is read in the same chunk as the
  // result is lost (typescript-sdk issue #2580, which servers cannot avoid). With an instant model
  // the last steps come within a millisecond of the result, so on a loaded machine only a prefix
  // arrives.
  const sent = ['thinking (model call 1)', 'calling echo', 'echo done', 'thinking (model call 2)'];
  assert.ok(progress.length >= 1, `progress: ${JSON.stringify(progress)}`);
  assert.equal(progress, sent.slice(0, progress.length));

  const again = await client.callTool({ name: 'ask_assistant', arguments: { message: 'how many turns?', session: out.sessionId } }) as CallToolResult;
  assert.is(text(again), 'turns: 2');
  assert.is((again.structuredContent as { sessionId: string }).sessionId, out.sessionId);

  const unknown = await client.callTool({ name: 'ask_assistant', arguments: { message: 'hi', session: 'no-such-session' } }) as CallToolResult;
  assert.is(unknown.isError, true);
  assert.match(text(unknown), /^ORYX_E_SESSION_NOT_FOUND: /);

  // The session carries the client's identity; the runs and the tool call are recorded.
  const sessions = await json(dir, ['sessions', '--tag', 'mcp-client:oryx-test-client@9.8.7']);
  assert.equal(sessions.items.map((s: { id: string }) => s.id), [out.sessionId]);
  const runs = await json(dir, ['runs']);
  const mine = runs.items.filter((r: { sessionId: string }) => r.sessionId === out.sessionId);
  assert.equal(mine.map((r: { stopReason: string }) => r.stopReason).sort(), ['final', 'final']);
  const tools = await json(dir, ['audit', 'tools']);
  const echo = tools.items.find((t: { tool: string; runId: string }) => t.tool === 'echo' && t.runId === out.runId);
  assert.ok(echo, JSON.stringify(tools.items));
});

test('cancelling the call aborts its run; the session stays usable', async () => {
  const dir = await project();
  const { client } = await connect(dir);
  const first = await client.callTool({ name: 'ask_assistant', arguments: { message: 'hello' } }) as CallToolResult;
  const session = (first.structuredContent as { sessionId: string }).sessionId;
  const controller = new AbortController();
  const started = Date.now();
  const slow = client.callTool({ name: 'ask_assistant', arguments: { message: 'slow', session } }, undefined, {
    signal: controller.signal, onprogress: () => controller.abort('the person pressed stop'),
  });
  await slow.then(() => assert.unreachable('the cancelled call answered'), (error: Error) => assert.match(String(error), /stop|abort/i));
  // The run ends as aborted at once (the model step would take a minute), and the session takes the next message.
  const next = await client.callTool({ name: 'ask_assistant', arguments: { message: 'still there?', session } }) as CallToolResult;
  assert.ok(Date.now() - started < 30_000, `took ${Date.now() - started} ms`);
  assert.is(text(next), 'turns: 3');
  const runs = await json(dir, ['runs']);
  const stops = runs.items.filter((r: { sessionId: string }) => r.sessionId === session).map((r: { stopReason: string }) => r.stopReason).sort();
  assert.equal(stops, ['aborted', 'final', 'final']);
});

test('an approval through the client\'s elicitation: approve runs the call, decline denies it', async () => {
  const dir = await project();
  let decision: ElicitResult = { action: 'accept', content: { decision: 'approve' } };
  const { client, asked } = await connect(dir, () => decision);
  const approved = await client.callTool({ name: 'ask_assistant', arguments: { message: 'write yes.txt' } }) as CallToolResult;
  assert.is(text(approved), 'model got: created yes.txt');
  assert.ok(existsSync(path.join(dir, 'yes.txt')));
  assert.is(asked.length, 1);
  assert.match(asked[0]!, /wants to call guarded/);
  assert.match(asked[0]!, /"file": "yes.txt"/);

  decision = { action: 'decline' };
  const declined = await client.callTool({ name: 'ask_assistant', arguments: { message: 'write no.txt' } }) as CallToolResult;
  assert.not.ok(existsSync(path.join(dir, 'no.txt')), 'a declined call ran');
  assert.match(text(declined), /^model got: .*denied/i);
  assert.match(text(declined), /mcp:oryx-test-client@9\.8\.7/);
  // A tool's own question reaches the person the same way, and their answer the tool.
  decision = { action: 'accept', content: { name: 'Ana' } };
  const named = await client.callTool({ name: 'ask_assistant', arguments: { message: 'ask me' } }) as CallToolResult;
  assert.is(text(named), 'model got: accept {"name":"Ana"}');
  assert.is(asked.at(-1), 'ask_name: Your name?');
  // Both decisions are in the audit, with who made them.
  const events = await json(dir, ['audit', 'sandbox']);
  const origins = events.items.map((e: { decision: string; origin: string }) => `${e.decision} ${e.origin}`);
  assert.ok(origins.some((o: string) => /^allow approval by mcp:oryx-test-client@9\.8\.7/.test(o)), origins.join('\n'));
  assert.ok(origins.some((o: string) => /^deny approval by mcp:oryx-test-client@9\.8\.7/.test(o)), origins.join('\n'));
});

test('without elicitation the run waits: the result says how to approve; approving from the CLI runs it; the session goes on', async () => {
  const dir = await project();
  const { client } = await connect(dir);
  const waiting = await client.callTool({ name: 'ask_assistant', arguments: { message: 'write later.txt' } }) as CallToolResult;
  const out = waiting.structuredContent as { stopReason: string; sessionId: string; approval: { id: string; approve: string; tool: string } };
  assert.is(out.stopReason, 'suspended');
  assert.is(out.approval.tool, 'guarded');
  assert.is(out.approval.approve, `oryx approvals approve ${out.approval.id.slice(0, 8)}`);
  assert.ok(text(waiting).includes(out.approval.approve), text(waiting));
  assert.not.ok(existsSync(path.join(dir, 'later.txt')), 'the call ran without an approval');
  const unasked = await client.callTool({ name: 'ask_assistant', arguments: { message: 'ask me' } }) as CallToolResult;
  assert.is(text(unasked), 'model got: nobody answered');

  // Until someone decides, the session takes no new message (the approvals plugin says why).
  const blocked = await client.callTool({ name: 'ask_assistant', arguments: { message: 'hello?', session: out.sessionId } }) as CallToolResult;
  assert.is(blocked.isError, true);
  assert.match(text(blocked), /^ORYX_E_APPROVAL_WAITING: /);

  const r = await runOryx(out.approval.approve.split(' ').slice(1), { cwd: dir });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /model got: created later\.txt/);
  assert.ok(existsSync(path.join(dir, 'later.txt')));
  const next = await client.callTool({ name: 'ask_assistant', arguments: { message: 'done?', session: out.sessionId } }) as CallToolResult;
  assert.is(text(next), 'turns: 2');
});

test('launched elsewhere with --config, as desktop clients do; stdout carries only the protocol, the server\'s lines go to stderr; it exits when the client closes', async () => {
  const dir = await project();
  const { client, stderr } = await connect(dir, undefined, { cwd: os.tmpdir(), args: ['--config', path.join(dir, 'oryx.config.ts')] });
  const r = await client.callTool({ name: 'ask_assistant', arguments: { message: 'hello' } }) as CallToolResult;
  assert.is(text(r), 'turns: 1');
  // The project's database holds the session, wherever the server was started.
  const sessions = await json(dir, ['sessions']);
  assert.ok(sessions.items.some((s: { id: string }) => s.id === (r.structuredContent as { sessionId: string }).sessionId), JSON.stringify(sessions));
  await client.close();
  for (let i = 0; i < 100 && !/stopped:/.test(stderr()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.match(stderr(), /oryx mcp serve: serving ask_assistant \(assistant\) on stdio/);
  assert.match(stderr(), /the client closed the connection: stopping\nstopped: 0 call\(s\) finished, 0 aborted/);
});

test('oryx doctor shows each exposed agent as its tool, and a missing one fails with its code; serve refuses to start without it', async () => {
  const dir = await project("['assistant', 'ghost']");
  const doctor = await runOryx(['doctor', '--json'], { cwd: dir });
  const items = JSON.parse(doctor.stdout).items as { check: string; status: string; detail: string; code?: string }[];
  const line = (check: string) => items.find((i) => i.check === check);
  assert.equal([line('mcp ask_assistant')?.status, line('mcp ask_assistant')?.detail], ['ok', 'agent assistant (tools: echo, guarded, ask_name)'], JSON.stringify(items));
  assert.equal([line('mcp ask_ghost')?.status, line('mcp ask_ghost')?.code], ['fail', 'ORYX_E_MCPSERVE_UNKNOWN_AGENT']);
  assert.match(line('mcp serve')!.detail, /^stdio: oryx mcp serve;/);
  assert.is(doctor.code, 1);
  const serve = await runOryx(['mcp', 'serve'], { cwd: dir });
  assert.is(serve.code, 1);
  assert.match(serve.stderr, /ORYX_E_MCPSERVE_UNKNOWN_AGENT/);
  assert.match(serve.stderr, /no agent "ghost"/);
  assert.is(serve.stdout, '', 'nothing but the protocol goes to stdout');
});

test('an exposed tool over stdio: listed, called as the agent would; needing approval it waits, and `oryx approvals approve` runs it; doctor shows it', async () => {
  const dir = await project(undefined, ", tools: ['echo', 'guarded']");
  const { client } = await connect(dir);
  assert.equal((await client.listTools()).tools.map((t) => t.name), ['ask_assistant', 'echo', 'guarded']);
  assert.is(text(await client.callTool({ name: 'echo', arguments: { text: 'plain' } }) as CallToolResult), 'echo: plain');
  const waiting = await client.callTool({ name: 'guarded', arguments: { file: 'direct.txt' } }) as CallToolResult;
  assert.is(waiting.isError, true);
  const approve = /`(oryx approvals approve [0-9a-f]{8})`/.exec(text(waiting))?.[1];
  assert.ok(approve, text(waiting));
  assert.not.ok(existsSync(path.join(dir, 'direct.txt')), 'never approved by itself');
  const r = await runOryx(approve!.split(' ').slice(1), { cwd: dir });
  assert.is(r.code, 0, r.stderr);
  assert.ok(existsSync(path.join(dir, 'direct.txt')), 'approved from the CLI, the call ran there');
  const sessions = await json(dir, ['sessions', '--tag', 'mcp-tool:guarded']);
  assert.is(sessions.items.length, 1, JSON.stringify(sessions));
  const doctor = JSON.parse((await runOryx(['doctor', '--json'], { cwd: dir })).stdout).items as { check: string; status: string; detail: string }[];
  assert.equal(doctor.filter((i) => i.check === 'mcp tools').map((i) => [i.status, i.detail]), [['ok', 'echo, guarded (each call a run of assistant: its sandbox, approvals and audit)']]);
});

test('oryx mcp serve without the plugin says how to enable it', async () => {
  const dir = await project();
  const config = path.join(dir, 'oryx.config.ts');
  const { readFile } = await import('node:fs/promises');
  await writeFile(config, (await readFile(config, 'utf8')).replace(/\n    mcpServer\(.*\),/, ''));
  const serve = await runOryx(['mcp', 'serve'], { cwd: dir });
  assert.is(serve.code, 1);
  assert.match(serve.stderr, /ORYX_E_MCPSERVE_NOT_ENABLED/);
});

test.run();
