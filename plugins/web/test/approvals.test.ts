// /api/approvals on a real SQLite file over loopback HTTP: a run that pauses answers 202 (and
// streams `approval_required`), deciding resumes it as the token's identity, a second or late
// decision is refused with its code; a pending write carries its diff.
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChatRequest } from '@oryxos/provider-spec';
import { echoTool, toolsPlugin } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import approvals from '@oryxos/plugin-approvals';
import { allSse, post, startWeb, type Harness } from './helpers.ts';

// Calls echo once per message, then answers with what the tool said.
const step = (req: ChatRequest) => (req.messages.at(-1)!.role === 'tool'
  ? { text: `tool said: ${req.messages.at(-1)!.content}` }
  : { toolCalls: [{ id: `call-${req.messages.length}`, name: 'echo', args: { text: 'push' } }] });

async function careful(): Promise<Harness & { echo: ReturnType<typeof echoTool> }> {
  const echo = echoTool();
  const h = await startWeb({
    script: Array.from({ length: 20 }, () => step), plugins: [toolsPlugin(echo), sqlite(), approvals()],
    agents: { assistant: { tools: ['echo'], approve: ['echo'] } },
  });
  return Object.assign(h, { echo });
}

async function pause(h: Harness, session: string, body = 'go'): Promise<{ status: number; approval: { id: string; tool: string; summary: string }; stopReason: string }> {
  const res = await post(`${h.url}/api/sessions/${session}/messages`, { message: body }, h.auth);
  return { status: res.status, ...((await res.json()) as { approval: { id: string; tool: string; summary: string }; stopReason: string }) };
}

async function newSession(h: Harness): Promise<string> {
  const res = await post(`${h.url}/api/sessions`, {}, h.auth);
  return ((await res.json()) as { id: string }).id;
}

test('a paused run answers 202 with the approval; GET lists it; approving resumes the run to its answer, decided by the token', async () => {
  const h = await careful();
  try {
    const session = await newSession(h);
    const paused = await pause(h, session);
    assert.equal([paused.status, paused.stopReason, paused.approval.tool], [202, 'suspended', 'echo']);
    assert.equal(h.echo.calls, []);
    const listed = (await (await fetch(`${h.url}/api/approvals?session=${session}`, { headers: h.auth })).json()) as { items: { id: string }[] };
    assert.equal(listed.items.map((a) => a.id), [paused.approval.id]);

    const busy = await post(`${h.url}/api/sessions/${session}/messages`, { message: 'more' }, h.auth);
    assert.is(busy.status, 409);
    assert.is(((await busy.json()) as any).error.code, 'ORYX_E_APPROVAL_WAITING');

    const decided = await post(`${h.url}/api/approvals/${paused.approval.id}`, { decision: 'approve' }, h.auth);
    assert.is(decided.status, 200);
    const body = (await decided.json()) as { status: string; decidedBy: string; run: { stopReason: string; answer: string } };
    assert.equal([body.status, body.decidedBy, body.run.stopReason, body.run.answer], ['approved', 'operator', 'final', 'tool said: echo: push']);
    assert.equal(h.echo.calls, [{ text: 'push' }]);

    const again = await post(`${h.url}/api/approvals/${paused.approval.id}`, { decision: 'deny' }, h.auth);
    assert.is(again.status, 409);
    const error = ((await again.json()) as any).error;
    assert.is(error.code, 'ORYX_E_APPROVAL_DECIDED');
    assert.match(error.message, /already approved and used \(by operator/);
  } finally {
    await h.close();
  }
});

test('SSE: approval_required with the id and summary, done with stopReason suspended; deny over SSE streams the resumed run', async () => {
  const h = await careful();
  try {
    const session = await newSession(h);
    const res = await post(`${h.url}/api/sessions/${session}/messages`, { message: 'go' }, { ...h.auth, accept: 'text/event-stream' });
    const events = await allSse(res);
    const asked = events.find((e) => e.event === 'approval_required');
    assert.ok(asked, JSON.stringify(events));
    const approval = JSON.parse(asked!.data) as { id: string; tool: string; summary: string; reasons: string[]; args: unknown };
    assert.equal([approval.tool, approval.args], ['echo', { text: 'push' }]);
    assert.match(approval.summary, /^echo \{"text":"push"\}: echo needs approval/);
    assert.equal(JSON.parse(events.at(-1)!.data).approval.id, approval.id);

    const denied = await post(`${h.url}/api/approvals/${approval.id}`, { decision: 'deny', reason: 'not today' }, { ...h.auth, accept: 'text/event-stream' });
    const resumed = await allSse(denied);
    assert.equal([resumed[0]!.event, resumed[1]!.event, resumed.at(-1)!.event], ['tool_call', 'tool_result', 'done'], 'the call with its denial first, then the answer');
    assert.is(JSON.parse(resumed[1]!.data).denied, 'denied by operator: not today');
    const done = JSON.parse(resumed.at(-1)!.data) as { status: string; run: { answer: string } };
    assert.is(done.status, 'denied');
    assert.match(done.run.answer, /^tool said: Not run: .*denied by operator: not today/);
    assert.equal(h.echo.calls, []);
  } finally {
    await h.close();
  }
});

test('two deciders at once: one wins, the other gets 409; an unknown id is 404; a bad decision 400; no token 401', async () => {
  const h = await careful();
  try {
    const paused = await pause(h, await newSession(h));
    const race = await Promise.all([
      post(`${h.url}/api/approvals/${paused.approval.id}`, { decision: 'approve' }, h.auth),
      post(`${h.url}/api/approvals/${paused.approval.id}`, { decision: 'deny' }, h.auth),
    ]);
    assert.equal(race.map((r) => r.status).sort(), [200, 409]);
    assert.ok(h.echo.calls.length <= 1, 'the call ran at most once');
    const unknown = await post(`${h.url}/api/approvals/00000000-0000-0000-0000-000000000000`, { decision: 'approve' }, h.auth);
    assert.equal([unknown.status, ((await unknown.json()) as any).error.code], [404, 'ORYX_E_APPROVAL_NOT_FOUND']);
    const bad = await post(`${h.url}/api/approvals/${paused.approval.id}`, { decision: 'maybe' }, h.auth);
    assert.is(bad.status, 400);
    assert.is((await post(`${h.url}/api/approvals/${paused.approval.id}`, { decision: 'approve' })).status, 401);
  } finally {
    await h.close();
  }
  const bare = await startWeb();
  try {
    const listed = await fetch(`${bare.url}/api/approvals`, { headers: bare.auth });
    assert.equal([listed.status, await listed.json()], [200, { items: [] }], 'without the plugin nothing waits');
    const res = await fetch(`${bare.url}/api/approvals/00000000-0000-0000-0000-000000000000`, { headers: bare.auth });
    assert.equal([res.status, ((await res.json()) as any).error.code], [404, 'ORYX_E_WEB_NO_APPROVALS']);
  } finally {
    await bare.close();
  }
});

test('a pending write_file carries the diff of what it would change (GET list and one), for files inside the project only; ?diff=false leaves it out', async () => {
  // A stand-in write_file: the diff depends on the call's name and arguments and the file on disk, not on the tool.
  const written: Record<string, unknown>[] = [];
  const writeFileTool = {
    name: 'write_file', description: 'Writes a file', source: 'plugin' as const,
    inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
    async execute(args: Record<string, unknown>) { written.push(args); return 'Wrote it'; },
  };
  const outside = `oryx-web-outside-${process.pid}.txt`;
  const paths = ['notes.txt', `../${outside}`, '/etc/hostname'];
  const h = await startWeb({
    script: Array.from({ length: 10 }, () => (req: ChatRequest) => {
      const asked = String(req.messages.findLast((m) => m.role === 'user')!.content);
      return { toolCalls: [{ id: `w-${asked}`, name: 'write_file', args: { path: paths[Number(asked)]!, content: 'one\nTWO\n' } }] };
    }),
    plugins: [toolsPlugin(writeFileTool), sqlite(), approvals()],
    agents: { assistant: { tools: ['write_file'], approve: ['write_file'] } },
  });
  try {
    await writeFile(path.join(h.kernel.config.root, 'notes.txt'), 'one\ntwo\n');
    await writeFile(path.join(h.kernel.config.root, '..', outside), 'secret\n');
    const ids: string[] = [];
    for (const i of [0, 1, 2]) ids.push((await pause(h, await newSession(h), String(i))).approval.id);
    const list = async (query: string) => ((await (await fetch(`${h.url}/api/approvals${query}`, { headers: h.auth })).json()) as { items: { id: string; diff?: string }[] }).items;
    const byId = new Map((await list('')).map((a) => [a.id, a]));
    assert.is(byId.get(ids[0]!)!.diff, '--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO');
    assert.is(byId.get(ids[1]!)!.diff, undefined, 'a path outside the project is not read');
    assert.is(byId.get(ids[2]!)!.diff, undefined, 'nor an absolute one elsewhere');
    const one = (await (await fetch(`${h.url}/api/approvals/${ids[0]}`, { headers: h.auth })).json()) as { diff?: string };
    assert.is(one.diff, byId.get(ids[0]!)!.diff);
    assert.ok((await list('?diff=false')).every((a) => a.diff === undefined));
    const bad = await fetch(`${h.url}/api/approvals?diff=maybe`, { headers: h.auth });
    assert.is(bad.status, 400);
    // Decided, it has none: the file has moved on since.
    await post(`${h.url}/api/approvals/${ids[0]}`, { decision: 'approve' }, h.auth);
    assert.is(((await (await fetch(`${h.url}/api/approvals/${ids[0]}`, { headers: h.auth })).json()) as { diff?: string }).diff, undefined);
    assert.equal(written, [{ path: 'notes.txt', content: 'one\nTWO\n' }]);
  } finally {
    await rm(path.join(h.kernel.config.root, '..', outside), { force: true });
    await h.close();
  }
});

test.run();
