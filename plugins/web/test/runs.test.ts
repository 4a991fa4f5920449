// The routes the console needs beyond the core API: a session's run timeline from the audit
// trail, stopping a session's runs, and finding sessions by title. On the real sqlite store and
// audit plugin.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OryxError } from '@oryxos/provider-spec';
import type { Plugin } from '@oryxos/kernel';
import type { SessionStore } from '@oryxos/contracts';
import { toolsPlugin, type Script, type TestAgent } from '@oryxos/kernel/testing';
import audit from '@oryxos/plugin-audit';
import { issueText, shape as s } from '@oryxos/schema-kit';
import sqlite from '@oryxos/plugin-sqlite';
import approvals from '@oryxos/plugin-approvals';
import { plain, step } from '../../audit/test/decided-sessions.ts';
import { TraceResponse } from '../src/run-routes.ts';
import { searchSessions } from '../src/session-search.ts';
import { allSse, newSession, post, startWeb, type Harness } from './helpers.ts';

/** echo (ok), guarded (denied: it reads a file and no sandbox allows it), wait (until aborted). */
const tools: Plugin = {
  name: 'test-tools', version: '1.0.0', kernel: '^1',
  setup(k) {
    k.registerTool({ name: 'echo', description: 'echo', source: 'plugin', inputSchema: { type: 'object' }, async execute(args) { return `echo: ${JSON.stringify(args)}`; } });
    k.registerTool({
      name: 'guarded', description: 'reads a file', source: 'plugin', inputSchema: { type: 'object' },
      actions: () => [{ kind: 'file', op: 'read', path: '/etc/passwd' }], async execute() { return 'never'; },
    });
    k.registerTool({
      name: 'wait', description: 'waits until aborted', source: 'plugin', inputSchema: { type: 'object' },
      async execute(_args, ctx) {
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        return 'aborted';
      },
    });
  },
};

async function withStore(script: Script, fn: (h: Harness) => Promise<void>, withAudit = true, more: { plugins?: Plugin[]; agents?: Record<string, TestAgent> } = {}): Promise<void> {
  const dbDir = await mkdtemp(path.join(tmpdir(), 'oryx-web-runs-'));
  const h = await startWeb({
    plugins: [sqlite({ url: `file:${path.join(dbDir, 'oryx.db')}` }), ...(withAudit ? [audit()] : []), approvals(), tools, ...more.plugins ?? []], script, agents: more.agents,
  });
  try {
    await fn(h);
  } finally {
    await h.close();
    await rm(dbDir, { recursive: true, force: true });
  }
}

const get = async (h: Harness, route: string) => {
  const res = await fetch(`${h.url}${route}`, { headers: h.auth });
  return { status: res.status, body: (await res.json()) as any };
};

const waitFor = async (check: () => boolean) => { while (!check()) await new Promise((r) => setTimeout(r, 5)); };

test('GET /api/sessions/:id/trace draws each run from the audit trail: model calls (a retried failure too), tool calls with their status, totals', async () => {
  await withStore([
    { error: new OryxError('ORYX_E_LLM_SERVER', 'overloaded', { retryable: true }) },
    { toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'hi' } }, { id: 'c2', name: 'guarded' }, { id: 'c3', name: 'nope' }], usage: { inputTokens: 100, outputTokens: 20 } },
    { text: 'first answer', usage: { inputTokens: 150, outputTokens: 7 } },
    { text: 'second answer', usage: { inputTokens: 40, outputTokens: 4 } },
  ], async (h) => {
    const id = await newSession(h);
    assert.is((await post(`${h.url}/api/sessions/${id}/messages`, { message: 'one' }, h.auth)).status, 200);
    assert.is((await post(`${h.url}/api/sessions/${id}/messages`, { message: 'two' }, h.auth)).status, 200);
    const { status, body } = await get(h, `/api/sessions/${id}/trace`);
    assert.is(status, 200);
    const checked = s.check(TraceResponse, body);
    assert.not.ok(checked, `the answer has the documented shape: ${checked && issueText(checked)}`);
    assert.is(body.sessionId, id);
    assert.is(body.agent, 'assistant');
    assert.is(body.moreRuns, false);
    assert.is(body.runs.length, 2);
    const [first, second] = body.runs;
    const shape = (e: any) => [e.kind, e.kind === 'llm' ? e.status : e.tool, e.kind === 'llm' ? e.attempt : e.status];
    // The three calls of one response run concurrently, so their start order among themselves is not fixed.
    const middle = first.entries.slice(2, 5).map(shape).sort((a: string[], b: string[]) => a[1]!.localeCompare(b[1]!));
    assert.equal([...first.entries.slice(0, 2).map(shape), ...middle, ...first.entries.slice(5).map(shape)], [
      ['llm', 'error', 1], ['llm', 'ok', 2], ['tool', 'echo', 'ok'], ['tool', 'guarded', 'denied'], ['tool', 'nope', 'error'], ['llm', 'ok', 1],
    ]);
    const [failed] = first.entries;
    const denied = first.entries.find((e: any) => e.tool === 'guarded');
    assert.is(failed.errorCode, 'ORYX_E_LLM_SERVER');
    assert.is(failed.retried, true);
    assert.match(denied.deniedReason, 'no sandbox plugin');
    assert.is(first.entries.find((e: any) => e.tool === 'echo').toolCallId, 'c1');
    assert.equal(first.totals, {
      llmCalls: 3, llmErrors: 1, retries: 1, inputTokens: 250, outputTokens: 27, llmMs: first.totals.llmMs,
      toolCalls: 3, toolErrors: 1, denied: 1, toolMs: first.totals.toolMs,
    });
    assert.is(second.totals.llmCalls, 1);
    assert.is(body.totals.inputTokens, 290);
    for (const run of body.runs) {
      assert.is(run.entries[0].offsetMs, 0, 'the first entry starts the run');
      assert.ok(run.entries.every((e: any, i: number) => i === 0 || e.offsetMs >= run.entries[i - 1].offsetMs), 'entries in start order');
      assert.ok(run.entries.every((e: any) => e.offsetMs + e.durationMs <= run.durationMs), 'every entry within its run');
      assert.is(Date.parse(run.endedAt) - Date.parse(run.startedAt), run.durationMs);
    }
    assert.ok(Date.parse(second.startedAt) >= Date.parse(first.endedAt), 'runs oldest first');

    const one = await get(h, `/api/sessions/${id}/trace?runs=1`);
    assert.equal(one.body.runs.map((r: any) => r.runId), [second.runId]);
    assert.is(one.body.moreRuns, true);
  });
});

test('the trace says who approved or denied each tool call that waited for a person, by session (a call id reused in another session is another call); null when nobody was asked', async () => {
  await withStore(Array.from({ length: 30 }, () => step), async (h) => {
    const message = async (id: string, text: string) => (await post(`${h.url}/api/sessions/${id}/messages`, { message: text }, h.auth)).json() as Promise<any>;
    // Decided over HTTP, as the token's identity (operator).
    const first = await newSession(h);
    const a1 = await message(first, 'c1 echo');
    assert.is((await post(`${h.url}/api/approvals/${a1.approval.id}`, { decision: 'approve' }, h.auth)).status, 200);
    const a2 = await message(first, 'c2 echo');
    assert.is((await post(`${h.url}/api/approvals/${a2.approval.id}`, { decision: 'deny', reason: 'not <b>now</b>' }, h.auth)).status, 200);
    assert.is((await message(first, 'c3 plain')).answer, 'tool said: echo: c3');
    // The same call ids in another session, decided the other way by other people (elsewhere, then resumed here).
    const second = await newSession(h);
    for (const [call, decision, by] of [['c1', 'deny', 'carol'], ['c2', 'approve', 'dave']] as const) {
      const paused = await message(second, `${call} echo`);
      await h.kernel.service('approvals').decide(paused.approval.id, { decision, by });
      assert.is((await h.kernel.runs.continue(paused.runId)).stopReason, 'final');
    }

    const calls = async (id: string) => {
      const { status, body } = await get(h, `/api/sessions/${id}/trace`);
      assert.is(status, 200);
      const checked = s.check(TraceResponse, body);
      assert.not.ok(checked, `the answer has the documented shape: ${checked && issueText(checked)}`);
      return body.runs.flatMap((r: any) => r.entries).filter((e: any) => e.kind === 'tool').map((e: any) => [e.toolCallId, e.status, e.approval]);
    };
    assert.equal(await calls(first), [
      ['c1', 'ok', { decision: 'approved', by: 'operator' }],
      ['c2', 'denied', { decision: 'denied', by: 'operator', reason: 'not <b>now</b>' }],
      ['c3', 'ok', null],
    ]);
    assert.equal(await calls(second), [
      ['c1', 'denied', { decision: 'denied', by: 'carol' }],
      ['c2', 'ok', { decision: 'approved', by: 'dave' }],
    ]);
  }, true, { plugins: [{ ...toolsPlugin(plain), name: 'plain-tool' }], agents: { assistant: { tools: ['echo', 'plain'], approve: ['echo'] } } });
});

test('the trace refuses a bad query and an unknown session, and says when there is no audit trail', async () => {
  await withStore([], async (h) => {
    const id = await newSession(h);
    for (const q of ['runs=0', 'runs=101', 'runs=abc', 'runs=']) {
      const { status, body } = await get(h, `/api/sessions/${id}/trace?${q}`);
      assert.is(status, 400, q);
      assert.is(body.error.code, 'ORYX_E_WEB_BAD_REQUEST');
      assert.match(body.error.message, 'runs');
    }
    assert.equal((await get(h, `/api/sessions/${id}/trace`)).body.runs, [], 'a session with no run yet');
    assert.is((await get(h, '/api/sessions/nope/trace')).body.error.code, 'ORYX_E_SESSION_NOT_FOUND');
  });
  await withStore([], async (h) => {
    const id = await newSession(h);
    const { status, body } = await get(h, `/api/sessions/${id}/trace`);
    assert.is(status, 404);
    assert.is(body.error.code, 'ORYX_E_WEB_NO_AUDIT');
    assert.match(body.error.hint, 'audit()');
  }, false);
});

test('POST /api/sessions/:id/stop stops the run going on: the stream ends with ORYX_E_WEB_STOPPED, the session stays whole and runs again', async () => {
  await withStore([
    { text: 'waiting', toolCalls: [{ id: 'w1', name: 'wait' }] },
    { text: 'never', delayMs: 30_000 },
    { text: 'back again' },
  ], async (h) => {
    const id = await newSession(h);
    const streaming = post(`${h.url}/api/sessions/${id}/messages`, { message: 'wait for it' }, { ...h.auth, accept: 'text/event-stream' });
    await waitFor(() => h.llm.requests.length === 1);
    await new Promise((r) => setTimeout(r, 50));
    const stop = await post(`${h.url}/api/sessions/${id}/stop`, {}, h.auth);
    assert.is(stop.status, 200);
    assert.equal(await stop.json(), { sessionId: id, stopped: 1 });
    const events = await allSse(await streaming);
    const last = events.at(-1)!;
    assert.is(last.event, 'error');
    assert.is(JSON.parse(last.data).code, 'ORYX_E_WEB_STOPPED');
    assert.ok(events.some((e) => e.event === 'tool_result'), 'the cut tool call got its result');
    // Answered only once the run has ended: what is stored now is final.
    const stored = (await get(h, `/api/sessions/${id}`)).body.messages.map((m: any) => m.message);
    assert.equal(stored.map((m: any) => m.role), ['user', 'assistant', 'tool']);
    assert.is(stored[2].toolCallId, 'w1');
    assert.is(stored[2].isError, true);

    // Not streamed: 409 with the same code.
    const plain = post(`${h.url}/api/sessions/${id}/messages`, { message: 'take your time' }, h.auth);
    await waitFor(() => h.llm.requests.length === 2);
    assert.equal(await (await post(`${h.url}/api/sessions/${id}/stop`, {}, h.auth)).json(), { sessionId: id, stopped: 1 });
    const res = await plain;
    assert.is(res.status, 409);
    assert.is(((await res.json()) as any).error.code, 'ORYX_E_WEB_STOPPED');

    assert.equal(await (await post(`${h.url}/api/sessions/${id}/stop`, {}, h.auth)).json(), { sessionId: id, stopped: 0 }, 'nothing going on');
    const next = await post(`${h.url}/api/sessions/${id}/messages`, { message: 'again' }, h.auth);
    assert.is(((await next.json()) as any).answer, 'back again');
    const sent = h.llm.requests.at(-1)!.messages.filter((m) => m.role !== 'system').map((m) => m.role);
    assert.equal(sent, ['user', 'assistant', 'tool', 'user', 'user'], 'every tool call with its result, no half step');
    assert.is((await post(`${h.url}/api/sessions/nope/stop`, {}, h.auth)).status, 404);
    assert.is((await fetch(`${h.url}/api/sessions/${id}/stop`, { method: 'POST', headers: h.auth })).status, 415, 'a JSON content type, like every POST');
  });
});

test('GET /api/sessions?q= finds sessions by title, case-insensitive, paged without skipping a match', async () => {
  await withStore([], async (h) => {
    const store = h.kernel.service('sessions');
    const titles = ['Invoice March', 'lunch', 'invoice april', 'INVOICE may', 'notes', 'Old invoice', 'misc'];
    for (const title of titles) {
      await store.create({ agent: 'assistant', title });
      await new Promise((r) => setTimeout(r, 2)); // distinct update times: a stable order
    }
    const all = await get(h, '/api/sessions?q=invoice');
    assert.equal(all.body.items.map((s: any) => s.title), ['Old invoice', 'INVOICE may', 'invoice april', 'Invoice March']);
    const seen: string[] = [];
    let cursor = '';
    do {
      const page = await get(h, `/api/sessions?q=INVOICE&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      assert.is(page.status, 200);
      seen.push(...page.body.items.map((s: any) => s.title));
      cursor = page.body.nextCursor ?? '';
    } while (cursor && seen.length < 10);
    assert.equal(seen, ['Old invoice', 'INVOICE may', 'invoice april', 'Invoice March']);
    assert.equal((await get(h, '/api/sessions?q=nothing-like-it')).body, { items: [] });
    assert.is((await get(h, `/api/sessions?q=${'x'.repeat(201)}`)).status, 400);
    assert.is((await get(h, '/api/sessions?q=')).status, 400);
  });
});

test('a title search stops after its scan limit and hands back the cursor to go on from', async () => {
  const infos = Array.from({ length: 7 }, (_, i) => ({ id: `s${i}`, agent: 'a', title: i === 5 ? 'target' : `other ${i}`, createdAt: '', updatedAt: '', messageCount: 0 }));
  const store = {
    async list({ limit = 50, cursor }: { limit?: number; cursor?: string }) {
      const start = cursor ? Number(cursor) : 0;
      const items = infos.slice(start, start + limit);
      return { items, ...(start + limit < infos.length ? { nextCursor: String(start + limit) } : {}) };
    },
  } as unknown as SessionStore;
  const first = await searchSessions(store, { q: 'target', limit: 5 }, 3);
  assert.equal(first.items, []);
  assert.ok(first.nextCursor);
  const second = await searchSessions(store, { q: 'target', limit: 5, cursor: first.nextCursor }, 3);
  assert.equal(second.items.map((s) => s.id), ['s5']);
  assert.ok(second.nextCursor, 'one session is left to search');
  assert.equal(await searchSessions(store, { q: 'target', limit: 5, cursor: second.nextCursor }, 3), { items: [] });
});

test('GET /api/info says who the request acts as', async () => {
  const h = await startWeb();
  try {
    assert.equal((await get(h, '/api/info')).body.identity, { name: 'operator', namesUsers: true });
  } finally {
    await h.close();
  }
});

test.run();
