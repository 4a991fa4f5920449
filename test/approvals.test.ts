// Approvals through `oryx web` in a child process, on a real SQLite file: a run pauses (202 +
// the approval id; SSE `approval_required`), approving resumes it to its answer, denying gives
// the model the reason, and a pending approval survives SIGKILL of the server.
import { readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempProject, writeAgents } from '@oryxos/kernel/testing';
import { killAll, listening, type CliServer } from '../plugins/web/test/cli-helpers.ts';
import { readSse } from '../plugins/web/console/sse.ts';

const TOKEN = 'approvals-e2e-token-0123456789';
let dir: string;
const servers: CliServer[] = [];

// The model writes src/notes.md, then answers with the tool result it got: by the conversation,
// not by position, since a resumed run may start in another process.
const config = `
import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import sandbox from '@oryxos/plugin-sandbox';
import tools from '@oryxos/plugin-tools';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '@oryxos/plugin-audit';
import web from '@oryxos/plugin-web';
import approvals from '@oryxos/plugin-approvals';
const step = (req) => {
  const result = req.messages.findLast((m) => m.role === 'tool');
  if (!result) return { toolCalls: [{ id: 'w1', name: 'write_file', args: { path: 'src/notes.md', content: '# notes\\n' } }] };
  return { text: 'tool said: ' + result.content };
};
export default defineConfig({
  plugins: [
    scripted(Array.from({ length: 20 }, () => step)),
    sandbox({ files: { read: ['.'], write: ['.'], ask: { write: ['src'] } } }),
    tools({ include: ['write_file'] }), sqlite(), audit(), web({ token: '${TOKEN}' }), approvals(),
  ],
});
`;

test.before.each(async () => {
  dir = await tempProject('approvals-e2e-');
  await writeFile(path.join(dir, 'oryx.config.ts'), config);
  await mkdir(path.join(dir, 'src'));
  await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['write_file'] } });
});
test.after.each(async () => {
  await killAll(servers.splice(0));
  await rm(dir, { recursive: true, force: true });
});

const auth = { authorization: `Bearer ${TOKEN}` };
const json = { ...auth, 'content-type': 'application/json' };

async function session(url: string): Promise<string> {
  const res = await fetch(`${url}/api/sessions`, { method: 'POST', headers: json, body: '{}' });
  return ((await res.json()) as { id: string }).id;
}

async function messages(url: string, id: string): Promise<{ role: string; content: string; toolCalls?: { id: string }[]; toolCallId?: string }[]> {
  const res = await fetch(`${url}/api/sessions/${id}`, { headers: auth });
  return ((await res.json()) as { messages: { message: never }[] }).messages.map((m) => m.message);
}

test('the JSON call answers 202 with the approval id; approve → the call runs and the run answers; the session holds call, result, answer', async () => {
  const s = await listening(dir, [], {});
  servers.push(s);
  const id = await session(s.url);
  const paused = await fetch(`${s.url}/api/sessions/${id}/messages`, { method: 'POST', headers: json, body: JSON.stringify({ message: 'take notes' }) });
  assert.is(paused.status, 202);
  const body = (await paused.json()) as { stopReason: string; approval: { id: string; tool: string } };
  assert.is(body.stopReason, 'suspended');
  assert.is(body.approval.tool, 'write_file');
  assert.equal((await messages(s.url, id)).map((m) => m.role), ['user', 'assistant'], 'the call has no result yet');

  const refused = await fetch(`${s.url}/api/sessions/${id}/messages`, { method: 'POST', headers: json, body: JSON.stringify({ message: 'hello?' }) });
  assert.is(refused.status, 409);
  assert.match(((await refused.json()) as any).error.message, new RegExp(body.approval.id));

  const decided = await fetch(`${s.url}/api/approvals/${body.approval.id}`, { method: 'POST', headers: json, body: JSON.stringify({ decision: 'approve' }) });
  assert.is(decided.status, 200);
  const after = (await decided.json()) as { status: string; decidedBy: string; run: { stopReason: string; answer: string } };
  assert.equal([after.status, after.decidedBy, after.run.stopReason], ['approved', 'operator', 'final']);
  assert.match(after.run.answer, /^tool said: Wrote/);
  assert.is(await readFile(path.join(dir, 'src', 'notes.md'), 'utf8'), '# notes\n');
  const stored = await messages(s.url, id);
  assert.equal(stored.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
  assert.is(stored[2]!.toolCallId, 'w1');
});

test('SSE: approval_required with the id and summary, then done; deny → the model gets the reason', async () => {
  const s = await listening(dir);
  servers.push(s);
  const id = await session(s.url);
  const res = await fetch(`${s.url}/api/sessions/${id}/messages`, { method: 'POST', headers: { ...json, accept: 'text/event-stream' }, body: JSON.stringify({ message: 'take notes' }) });
  const events: { event?: string; data: string }[] = [];
  for await (const e of readSse(res.body!)) events.push(e);
  const asked = events.find((e) => e.event === 'approval_required');
  assert.ok(asked, JSON.stringify(events));
  const approval = JSON.parse(asked!.data) as { id: string; tool: string; summary: string };
  assert.is(approval.tool, 'write_file');
  assert.match(approval.summary, /src\/notes\.md/);
  assert.is(JSON.parse(events.at(-1)!.data).stopReason, 'suspended');

  const denied = await fetch(`${s.url}/api/approvals/${approval.id}`, { method: 'POST', headers: json, body: JSON.stringify({ decision: 'deny', reason: 'notes go to docs/' }) });
  const after = (await denied.json()) as { run: { answer: string } };
  assert.match(after.run.answer, /^tool said: Not run: .*denied by operator: notes go to docs\//);
  assert.is(await readFile(path.join(dir, 'src', 'notes.md'), 'utf8').catch(() => 'absent'), 'absent');
});

test('durable: SIGKILL the server while an approval is pending, restart, approve → the run resumes and completes', async () => {
  const first = await listening(dir);
  servers.push(first);
  const id = await session(first.url);
  const paused = await fetch(`${first.url}/api/sessions/${id}/messages`, { method: 'POST', headers: json, body: JSON.stringify({ message: 'take notes' }) });
  const { approval } = (await paused.json()) as { approval: { id: string } };
  first.child.kill('SIGKILL');
  await first.exit;

  const second = await listening(dir);
  servers.push(second);
  const pending = (await (await fetch(`${second.url}/api/approvals?status=pending`, { headers: auth })).json()) as { items: { id: string }[] };
  assert.equal(pending.items.map((a) => a.id), [approval.id], 'the pending approval survived the kill');
  const decided = await fetch(`${second.url}/api/approvals/${approval.id}`, { method: 'POST', headers: json, body: JSON.stringify({ decision: 'approve' }) });
  assert.is(((await decided.json()) as { run: { stopReason: string } }).run.stopReason, 'final');
  const stored = await messages(second.url, id);
  assert.equal(stored.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant'], 'one call, one result, one answer: nothing twice, nothing lost');
  assert.is(await readFile(path.join(dir, 'src', 'notes.md'), 'utf8'), '# notes\n');
  const again = await fetch(`${second.url}/api/approvals/${approval.id}`, { method: 'POST', headers: json, body: JSON.stringify({ decision: 'deny' }) });
  assert.is(again.status, 409);
});

test.run();
