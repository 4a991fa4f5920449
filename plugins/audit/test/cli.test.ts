// End-to-end: the built `oryx` binary in a temp project with no config file (the default
// plugins sqlite and audit). Build first:
//   npx tsc -b plugins/sqlite plugins/audit && node scripts/manifest.mjs
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OryxError } from '@oryxos/provider-spec';
import { runOryx, scripted, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import approvalsPlugin from '@oryxos/plugin-approvals';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '../src/index.ts';
import { echo, fail, guarded } from './helpers.ts';

async function json(cwd: string, ...args: string[]): Promise<any> {
  const r = await runOryx([...args, '--json'], { cwd });
  assert.is(r.code, 0, `oryx ${args.join(' ')} failed: ${r.stderr}${r.stdout}`);
  const out = JSON.parse(r.stdout);
  assert.equal(Object.keys(out), ['items'], 'a list prints {"items": [...]}');
  return out.items;
}

test('oryx audit llm / tools / summary read the trail, filter it, and print JSON for scripts', async () => {
  // outside the repository, so no oryx.config.ts is found up the tree
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-audit-cli-'));
  try {
    const llm = scripted([
      { error: new OryxError('ORYX_E_LLM_SERVER', 'overloaded', { retryable: true }) },
      { toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'hi' } }, { id: 'c2', name: 'guarded', args: { path: '/x' } }], usage: { inputTokens: 100, outputTokens: 10 } },
      { text: 'first done', usage: { inputTokens: 120, outputTokens: 5 } },
      { toolCalls: [{ id: 'c3', name: 'fail' }], usage: { inputTokens: 50, outputTokens: 3 } },
      { text: 'second done', usage: { inputTokens: 60, outputTokens: 2 } },
    ]);
    const k = await testKernel({ plugins: [llm, toolsPlugin(echo, fail, guarded), sqlite(), audit()], dir });
    const a = await k.service.process({ agent: 'assistant', message: 'one' });
    const b = await k.service.process({ agent: 'assistant', message: 'two' });
    await k.close({ keep: true });

    const [calls, failed, tools, denied, ofB, summary, human, sandboxEvents, allowedEvents] = await Promise.all([
      json(dir, 'audit', 'llm'),
      json(dir, 'audit', 'llm', '--status', 'error'),
      json(dir, 'audit', 'tools'),
      json(dir, 'audit', 'tools', '--status', 'denied'),
      json(dir, 'audit', 'tools', '--session', b.sessionId.slice(0, 8)),
      json(dir, 'audit', 'summary'),
      runOryx(['audit', 'summary'], { cwd: dir }),
      json(dir, 'audit', 'sandbox'),
      json(dir, 'audit', 'sandbox', '--decision', 'allow'),
    ]);
    // the denial is in the sandbox's own trail too, with what asked
    assert.equal(sandboxEvents.map((e: Record<string, unknown>) => [e.decision, e.kind, e.target, e.origin, e.toolCallId, e.sessionId]), [
      ['deny', 'file', 'read /x', 'tool guarded', 'c2', a.sessionId],
    ]);
    assert.equal(allowedEvents, []);
    assert.is(calls.length, 5);
    assert.equal(calls.map((c: { status: string }) => c.status), ['ok', 'ok', 'ok', 'ok', 'error'], 'newest first');
    assert.equal(failed.map((c: { error: string; attempt: number }) => [c.error, c.attempt]), [['overloaded', 1]]);
    assert.equal(tools.map((t: { tool: string; status: string }) => [t.tool, t.status]).sort(), [['echo', 'ok'], ['fail', 'error'], ['guarded', 'denied']]);
    assert.is(denied.length, 1);
    assert.match(denied[0].deniedReason, 'no sandbox plugin');
    assert.equal(ofB.map((t: { toolCallId: string }) => t.toolCallId), ['c3']);

    const bySession = Object.fromEntries(summary.map((s: { sessionId: string }) => [s.sessionId, s]));
    assert.equal(Object.keys(bySession).sort(), [a.sessionId, b.sessionId].sort());
    const sa = bySession[a.sessionId];
    assert.equal([sa.llmCalls, sa.inputTokens, sa.outputTokens, sa.llmFailures, sa.toolCalls, sa.toolErrors, sa.denials], [3, 220, 15, 1, 2, 0, 1]);
    const sb = bySession[b.sessionId];
    assert.equal([sb.llmCalls, sb.inputTokens, sb.outputTokens, sb.llmFailures, sb.toolCalls, sb.toolErrors, sb.denials], [2, 110, 5, 0, 1, 1, 0]);

    assert.is(human.code, 0, human.stderr);
    const lines = human.stdout.trim().split('\n');
    assert.is(lines.length, 3, 'a header and one line per session');
    assert.match(lines[0]!, 'SESSION');
    assert.ok(lines.some((l) => l.startsWith(a.sessionId)));

    // One call in full: its fields and its prompt report, for a person and as JSON.
    const newest = calls[0];
    const shown = await runOryx(['audit', 'llm', '--show', String(newest.id)], { cwd: dir });
    assert.is(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, `model call ${newest.id} at `);
    assert.match(shown.stdout, /prompt \(about \d+ tokens\): .*history \d+/);
    assert.match(shown.stdout, 'nothing was cut');
    const one = JSON.parse((await runOryx(['audit', 'llm', '--show', String(newest.id), '--json'], { cwd: dir })).stdout);
    assert.is(one.id, newest.id);
    assert.equal(one.promptReport, newest.promptReport);
    assert.equal(one.promptReport.cut, []);
    const missing = await runOryx(['audit', 'llm', '--show', '99999'], { cwd: dir });
    assert.is(missing.code, 1);
    assert.match(missing.stderr, 'error ORYX_E_AUDIT_NOT_FOUND: No model call with id 99999');

    const bad = await runOryx(['audit', 'tools', '--status', 'maybe'], { cwd: dir });
    assert.is.not(bad.code, 0);
    assert.match(bad.stderr, 'maybe');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('oryx audit llm --show ID prints what the call was sent and its answer, redacted as the audit redacts; --json too', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-audit-show-'));
  try {
    const llm = scripted([
      { error: new OryxError('ORYX_E_LLM_SERVER', 'overloaded', { retryable: true }) },
      { toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'hi' } }] },
      { text: 'done with sk-abcdefghijklmnopqrstuvwxyz0123' },
    ]);
    const k = await testKernel({ plugins: [llm, toolsPlugin(echo), sqlite(), audit()], dir });
    await k.service.process({ agent: 'assistant', message: 'use key sk-zyxwvutsrqponmlkjihgfedcba9876 please' });
    await k.close({ keep: true });
    const calls = await json(dir, 'audit', 'llm'); // newest first: the answer, the tool call, the failure
    const [answer, toolCall, failure] = calls.map((c: { id: number }) => c.id);

    const shown = await runOryx(['audit', 'llm', '--show', String(answer)], { cwd: dir });
    assert.is(shown.code, 0, shown.stderr);
    const text = shown.stdout;
    assert.match(text, /sent 3 message\(s\) from the session[^\n]*\n {2}\[user\] use key \[REDACTED\] please\n {2}\[assistant\] *\n {4}→ echo \{"text":"hi"\}\n {2}\[tool echo\] echo: hi\nanswer:\n {2}\[assistant\] done with \[REDACTED\]/);
    assert.not.match(text, /sk-[a-z]{10}/);

    const one = JSON.parse((await runOryx(['audit', 'llm', '--show', String(toolCall), '--json'], { cwd: dir })).stdout);
    assert.equal(one.request.messages.map((m: { role: string }) => m.role), ['user']);
    assert.is(one.request.messages[0].content, 'use key [REDACTED] please');
    assert.equal(one.response.toolCalls.map((c: { name: string; args: unknown }) => [c.name, c.args]), [['echo', { text: 'hi' }]]);

    const failed = JSON.parse((await runOryx(['audit', 'llm', '--show', String(failure), '--json'], { cwd: dir })).stdout);
    assert.equal(failed.request.messages.map((m: { role: string }) => m.role), ['user'], 'a failed call: what it was sent');
    assert.is(failed.response, null);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('oryx audit tools says who approved or denied a call that waited for a person, per session (a call id reused in another session is another call)', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-audit-approvals-'));
  try {
    const call = { toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'hi' } }] };
    const llm = scripted([call, call, { text: 'a done' }, { text: 'b done' }, call, { text: 'c done' }]);
    const k = await testKernel({
      plugins: [llm, toolsPlugin(echo), sqlite(), audit(), approvalsPlugin()], dir,
      agents: { careful: { tools: ['echo'], approve: ['echo'] }, assistant: { tools: ['echo'] } },
    });
    const a = await k.service.process({ agent: 'careful', message: 'one' });
    const b = await k.service.process({ agent: 'careful', message: 'two' });
    const approvals = k.kernel.service('approvals');
    const idOf = (r: typeof a) => String(r.suspended![0]!.data!.approvalId);
    await approvals.decide(idOf(a), { decision: 'approve', by: 'alice' });
    await approvals.decide(idOf(b), { decision: 'deny', by: 'bob', reason: 'not now' });
    assert.is((await k.service.continue(a.runId)).answer, 'a done');
    assert.is((await k.service.continue(b.runId)).answer, 'b done');
    const c = await k.service.process({ agent: 'assistant', message: 'three' });
    await k.close({ keep: true });

    const tools = await json(dir, 'audit', 'tools');
    const bySession = new Map(tools.map((t: { sessionId: string; approval: unknown; status: string }) => [t.sessionId, [t.status, t.approval]]));
    assert.equal(bySession.get(a.sessionId), ['ok', { decision: 'approved', by: 'alice' }]);
    assert.equal(bySession.get(b.sessionId), ['denied', { decision: 'denied', by: 'bob', reason: 'not now' }]);
    assert.equal(bySession.get(c.sessionId), ['ok', null], 'a call nobody was asked about has no approval');
    const human = await runOryx(['audit', 'tools'], { cwd: dir });
    assert.is(human.code, 0, human.stderr);
    assert.match(human.stdout, 'approved by alice');
    assert.match(human.stdout, 'denied by bob: not now');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
