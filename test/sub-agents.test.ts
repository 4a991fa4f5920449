// Sub-agents end to end through the built CLI on a real sqlite file: the lead agent hands a task
// to agent__researcher; the researcher runs in a child session under its own sandbox narrowing;
// the sessions are linked both ways in `oryx sessions show` and GET /api/sessions/:id; the run
// records and every audit row carry the child's own session.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Kernel } from '@oryxos/kernel';
import { runOryx, tempProject, writeAgents } from '@oryxos/kernel/testing';
import { loadConfig } from '@oryxos/command-kit';

const TOKEN = 'sub-agents-token-0123456789abcdef';
let dir: string;
const oryx = (args: string[]) => runOryx(args, { cwd: dir });

test.before(async () => {
  dir = await tempProject('sub-agents-');
  await mkdir(path.join(dir, 'docs', 'public'), { recursive: true });
  await writeFile(path.join(dir, 'docs', 'public', 'fact.txt'), 'the sky is blue');
  await writeFile(path.join(dir, 'docs', 'secret.txt'), 'the lead may read this');
  // One scripted model; which agent is asking is in its system prompt.
  await writeFile(path.join(dir, 'oryx.config.ts'), `import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import sandbox from '@oryxos/plugin-sandbox';
import tools from '@oryxos/plugin-tools';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '@oryxos/plugin-audit';
import web from '@oryxos/plugin-web';
import subagents from '@oryxos/plugin-subagents';
const behave = (req) => {
  const system = req.messages[0].content;
  const last = req.messages.at(-1);
  const results = req.messages.filter((m) => m.role === 'tool').map((m) => m.content).join(' | ');
  if (system.includes('You lead.')) {
    return last.role === 'user'
      ? { toolCalls: [{ name: 'agent__researcher', args: { task: 'Read docs/secret.txt and docs/public/fact.txt' } }] }
      : { text: 'lead heard: ' + results };
  }
  return last.role === 'user'
    ? { toolCalls: [{ name: 'read_file', args: { path: 'docs/secret.txt' } }, { name: 'read_file', args: { path: 'docs/public/fact.txt' } }] }
    : { text: 'researcher read: ' + results };
};
export default defineConfig({
  plugins: [
    scripted(Array.from({ length: 20 }, () => behave)), sandbox({ files: { read: ['docs'] } }), tools(), sqlite(), audit(), subagents(),
    web({ token: '${TOKEN}' }),
  ],
});
`);
  await writeAgents(path.join(dir, '.oryxos'), {
    lead: { agents: ['researcher'], tools: ['read_file'], body: 'You lead.' },
    researcher: { description: 'Reads the public docs', tools: ['read_file'], sandbox: { files: { read: ['docs/public'] } }, body: 'You research.' },
  });
});
test.after(async () => { await rm(dir, { recursive: true, force: true }); });

test('delegation through the CLI: the answer, the linked sessions, the run records and the audit rows under the child session', async () => {
  const run = await oryx(['run', '--agent', 'lead', 'what do the docs say?', '--json']);
  assert.is(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.is(result.stopReason, 'final');
  assert.match(result.answer, /^lead heard: researcher read: Denied by the sandbox: .*docs\/secret\.txt.* \| the sky is blue$/,
    'the researcher\'s own sandbox narrowing applied: the file its caller may read was denied to it');
  assert.is(result.budget.toolCalls, 3, 'the caller\'s budget counts its agent__ call and the researcher\'s two reads');

  const parent = JSON.parse((await oryx(['sessions', 'show', result.sessionId, '--json'])).stdout);
  assert.is(parent.parentSessionId, undefined);
  assert.is(parent.children.length, 1);
  const childId: string = parent.children[0].id;
  assert.is(parent.children[0].agent, 'researcher');
  const child = JSON.parse((await oryx(['sessions', 'show', childId, '--json'])).stdout);
  assert.is(child.parentSessionId, result.sessionId);
  assert.equal(child.children, []);
  assert.equal(child.messages.map((m: { message: { role: string } }) => m.message.role), ['user', 'assistant', 'tool', 'tool', 'assistant']);

  const shown = await oryx(['sessions', 'show', result.sessionId.slice(0, 8)]);
  assert.match(shown.stdout, `child   ${childId} agent researcher · 5 message(s)`);
  assert.match((await oryx(['sessions', 'show', childId])).stdout, `parent  ${result.sessionId}`);
  // The list marks the sub-agent's session with its caller's short id.
  const listed = (await oryx(['sessions'])).stdout.split('\n');
  assert.match(listed[0]!, /^ID\s+AGENT\s+PARENT\s+MESSAGES/);
  assert.match(listed.find((l) => l.startsWith(childId))!, new RegExp(`^${childId}\\s+researcher\\s+${result.sessionId.slice(0, 8)}\\s`));
  assert.match(listed.find((l) => l.startsWith(result.sessionId))!, new RegExp(`^${result.sessionId}\\s+lead\\s+\\d+\\s`), 'the caller has no parent');

  const runs = JSON.parse((await oryx(['runs', '--json'])).stdout).items as { runId: string; sessionId: string; agent: string; parentRunId?: string }[];
  const childRun = runs.find((r) => r.agent === 'researcher')!;
  assert.equal([childRun.sessionId, childRun.parentRunId], [childId, result.runId]);
  assert.is(runs.find((r) => r.agent === 'lead')!.parentRunId, undefined);

  // The audit trail: every LLM and tool call under the session of the agent that made it.
  const config = await loadConfig({ file: path.join(dir, 'oryx.config.ts') });
  const kernel = await new Kernel({ config: config! }).start();
  try {
    const db = kernel.service('database');
    const llm = await db.query<{ session_id: string; agent: string }>('SELECT session_id, agent FROM llm_calls ORDER BY id');
    assert.equal(llm.map((r) => [r.agent, r.session_id]), [
      ['lead', result.sessionId], ['researcher', childId], ['researcher', childId], ['lead', result.sessionId],
    ]);
    const calls = await db.query<{ session_id: string; tool: string; status: string }>('SELECT session_id, tool, status FROM tool_invocations ORDER BY id');
    // (the researcher's two reads ran concurrently: their rows are in the order they finished)
    assert.equal(calls.map((r) => [r.tool, r.status, r.session_id]).sort(), [
      ['agent__researcher', 'ok', result.sessionId], ['read_file', 'denied', childId], ['read_file', 'ok', childId],
    ]);

    // REST: the same links.
    const server = kernel.service('web' as never) as { listen(o: { port: number }): Promise<{ url: string; close(): Promise<void> }> };
    const { url } = await server.listen({ port: 0 });
    const get = async (route: string) => {
      const res = await fetch(`${url}${route}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.is(res.status, 200, route);
      return res.json() as Promise<any>;
    };
    const restParent = await get(`/api/sessions/${result.sessionId}`);
    assert.equal(restParent.children.map((c: { id: string }) => c.id), [childId]);
    const restChild = await get(`/api/sessions/${childId}`);
    assert.is(restChild.parentSessionId, result.sessionId);
    assert.is(restChild.runs[0].parentRunId, result.runId);
    // What the lead is offered, listed the same way by REST and the CLI: its tools and agent__researcher.
    const restTools = await get('/api/tools?agent=lead');
    const cliTools = JSON.parse((await oryx(['tools', '-a', 'lead', '--json'])).stdout);
    for (const listed of [restTools, cliTools]) {
      const sub = listed.items.find((t: { name: string }) => t.name === 'agent__researcher');
      assert.ok(sub, 'agent__researcher is listed');
      assert.equal(sub.inputSchema.required, ['task']);
      assert.is(sub.plugin, 'subagents');
    }
    assert.equal(cliTools.items.map((t: { name: string }) => t.name), restTools.items.map((t: { name: string }) => t.name));
    assert.not.ok((await get('/api/tools?agent=researcher')).items.some((t: { name: string }) => t.name.startsWith('agent__')), 'the researcher has no sub-agents');
  } finally {
    await kernel.close();
  }
});

test('a cycle in agents: is refused before anything runs, naming the path and the file', async () => {
  await writeAgents(path.join(dir, '.oryxos'), { a: { agents: ['b'], tools: [] }, b: { agents: ['a'], tools: [] } });
  const r = await oryx(['run', '--agent', 'a', 'hi']);
  assert.is(r.code, 1);
  assert.match(r.stderr, 'ORYX_E_AGENT_CYCLE');
  assert.match(r.stderr, /agents\/b\/AGENT\.md: agents: a → b → a is a cycle/);
});

test.run();
