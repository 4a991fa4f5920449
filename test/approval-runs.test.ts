// Runs that wait for a person, on a real SQLite file with the approvals plugin: a call that needs
// approval suspends the run (no result committed, the model sees nothing), the session refuses
// new messages meanwhile, and the run continues once decided (approved: the call runs; denied:
// the model gets the reason). An approval covers exactly the call it was for — its tool, its
// arguments — once. A door that can ask (the terminal) decides in-process.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import type { Plugin, Question, RunEvent } from '@oryxos/kernel';
import { echoTool, scripted, testKernel, toolsPlugin, type TestKernel } from '@oryxos/kernel/testing';
import approvals from '@oryxos/plugin-approvals';
import audit from '@oryxos/plugin-audit';
import sqlite from '@oryxos/plugin-sqlite';

/** The roles and tool-call ids of a session's messages, in order. */
async function shape(t: TestKernel, sessionId: string): Promise<string[]> {
  return (await t.kernel.service('sessions').messages(sessionId)).map(({ message: m }) => (m.role === 'tool' ? `tool:${m.toolCallId}` : m.role));
}

async function code(promise: Promise<unknown>): Promise<string> {
  try { await promise; } catch (error) { return isOryxError(error) ? error.code : String(error); }
  return 'resolved';
}

const approvalOf = (r: { suspended?: { data?: Record<string, unknown> }[] }) => String(r.suspended?.[0]?.data?.approvalId);

/** A door whose person answers with `answer()` (undefined: nobody there now). */
function door(name: string, answer: (q: Question) => { decision: 'approve' | 'always' | 'deny'; by: string; reason?: string } | undefined, asked: Question[] = []): Plugin {
  return { name: `door-${name}`, version: '1.0.0', kernel: '^1', setup(ctx) { ctx.registerDoor({ name, ask: async (q) => { asked.push(q); return answer(q); } }); } };
}

test('approve: the run suspends with the call unanswered, refuses new messages, and continues to its answer once approved', async () => {
  const echo = echoTool();
  const llm = scripted([
    { toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'push' } }] },
    (req) => ({ text: `done: ${req.messages.at(-1)!.content}` }),
  ]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo), sqlite(), audit(), approvals()], agents: { assistant: { tools: ['echo'], approve: ['echo'] } } });
  try {
    const events: RunEvent[] = [];
    const paused = await t.service.process({ agent: 'assistant', message: 'go', onEvent: (e) => events.push(e) });
    assert.is(paused.stopReason, 'suspended');
    const id = approvalOf(paused);
    assert.match(paused.suspended![0]!.reason, /^echo \{"text":"push"\}: echo needs approval: approve: \[echo\] in /);
    assert.equal(echo.calls, [], 'nothing ran');
    assert.equal(await shape(t, paused.sessionId), ['user', 'assistant'], 'the call has no result yet');
    assert.ok(events.some((e) => e.type === 'suspended' && e.call.toolCallId === 'c1' && e.args.text === 'push'));
    assert.is(llm.requests.length, 1, 'the model was not called again');
    const record = await t.kernel.service('runRecords').get(paused.runId);
    assert.equal([record?.stopReason, record?.continuation?.suspended.map((s) => s.toolCallId)], ['suspended', ['c1']]);

    // The session takes no new message meanwhile, and says which approval it waits for.
    const refused = await t.service.process({ agent: 'assistant', session: paused.sessionId, message: 'hello?' }).catch((e: unknown) => e);
    assert.ok(isOryxError(refused) && refused.code === 'ORYX_E_APPROVAL_WAITING', String(refused));
    assert.match((refused as Error).message, new RegExp(id));

    // Continued while still pending, the call waits again: nothing runs.
    const still = await t.service.continue(paused.runId);
    assert.is(still.stopReason, 'suspended');
    assert.equal(echo.calls, []);

    await t.kernel.service('approvals').decide(id, { decision: 'approve', by: 'cli' });
    const resumed = await t.service.continue(still.runId);
    assert.equal([resumed.stopReason, resumed.answer, resumed.sessionId], ['final', 'done: echo: push', paused.sessionId]);
    assert.equal(echo.calls, [{ text: 'push' }]);
    assert.equal(await shape(t, paused.sessionId), ['user', 'assistant', 'tool:c1', 'assistant']);
    assert.is(await code(t.service.continue(still.runId)), 'ORYX_E_RUN_NOT_CONTINUABLE', 'a continued run does not continue twice');
    assert.is((await t.kernel.service('approvals').get(id))?.status, 'used', 'the approval was used by its call, once');
    const db = t.kernel.service('database');
    const decisions = await db.query<{ decision: string; kind: string; origin: string }>('SELECT decision, kind, origin FROM sandbox_events ORDER BY id');
    assert.equal(decisions, [
      { decision: 'ask', kind: 'tool', origin: `approval ${id} requested` },
      { decision: 'allow', kind: 'tool', origin: `approval ${id} by cli` },
    ]);
    assert.equal(await db.query('SELECT tool_call_id, status FROM tool_invocations'), [{ tool_call_id: 'c1', status: 'ok' }]);
  } finally {
    await t.close();
  }
});

test('an approval binds to its call: the same call id with other arguments, or another tool, asks again; a used approval lets nothing else through', async () => {
  const echo = echoTool();
  const note = { ...echoTool(), name: 'note' };
  // The model (a hostile or careless server picks ids) reuses id `x` for every call.
  const llm = scripted([
    { toolCalls: [{ id: 'x', name: 'echo', args: { text: 'shown to the person' } }] },
    { toolCalls: [{ id: 'x', name: 'echo', args: { text: 'something else' } }] },
    { toolCalls: [{ id: 'x', name: 'note', args: { text: 'shown to the person' } }] },
    { toolCalls: [{ id: 'x', name: 'echo', args: { text: 'shown to the person' } }] },
    { text: 'done' },
  ]);
  const asked: Question[] = [];
  const t = await testKernel({
    plugins: [llm, toolsPlugin(echo, note), sqlite(), approvals(), door('cli', (q) => (q.kind === 'approval' && asked.length === 1 ? { decision: 'approve', by: 'alice' } : undefined), asked)],
    agents: { assistant: { tools: ['echo', 'note'], approve: ['echo', 'note'] } },
  });
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'go', door: 'cli' });
    // The first call was approved at the door; every later one under the same id is a new question.
    assert.equal(echo.calls, [{ text: 'shown to the person' }], 'only the call the person saw ran');
    assert.equal(note.calls, []);
    assert.is(r.stopReason, 'suspended', 'the second call waits for its own approval');
    assert.equal(asked.map((q) => q.kind === 'approval' && [q.call.name, q.call.args.text]), [['echo', 'shown to the person'], ['echo', 'something else']]);
    const pending = await t.kernel.service('approvals').list({ status: 'pending' });
    assert.equal(pending.map((a) => [a.tool, a.args.text]), [['echo', 'something else']]);

    // Approving that one lets exactly it run; the next call (another tool, same id) asks again.
    await t.kernel.service('approvals').decide(pending[0]!.id, { decision: 'approve', by: 'bob' });
    const next = await t.service.continue(r.runId);
    assert.equal(echo.calls.map((c) => c.text), ['shown to the person', 'something else']);
    assert.is(next.stopReason, 'suspended');
    assert.equal(note.calls, [], 'an approval of echo does not cover note under the same id');
    const noteAsk = (await t.kernel.service('approvals').list({ status: 'pending' }))[0]!;
    assert.equal([noteAsk.tool, noteAsk.args.text], ['note', 'shown to the person']);
    await t.kernel.service('approvals').decide(noteAsk.id, { decision: 'deny', by: 'bob', reason: 'no notes' });
    const last = await t.service.continue(next.runId);
    // The fourth call repeats the first exactly, but that approval was used: it asks again.
    assert.is(last.stopReason, 'suspended');
    assert.equal(echo.calls.length, 2, 'a used approval lets nothing through a second time');
    const messages = await t.kernel.service('sessions').messages(r.sessionId);
    assert.match(messages.filter((m) => m.message.role === 'tool').map((m) => m.message.content).join('\n'), /denied by bob: no notes/);
  } finally {
    await t.close();
  }
});

test('deny: the model gets the reason and who denied; the tool never runs; the next message is taken', async () => {
  const echo = echoTool();
  const llm = scripted([
    { toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'push' } }] },
    (req) => ({ text: `told: ${req.messages.at(-1)!.content}` }),
    { text: 'fine' },
  ]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo), sqlite(), approvals()], agents: { assistant: { tools: ['echo'], approve: ['echo'] } } });
  try {
    const paused = await t.service.process({ agent: 'assistant', message: 'go' });
    await t.kernel.service('approvals').decide(approvalOf(paused), { decision: 'deny', by: 'operator', reason: 'not on a Friday' });
    const resumed = await t.service.continue(paused.runId);
    assert.match(resumed.answer, /^told: Not run: this call needed a person's approval, and it was denied by operator: not on a Friday\./);
    assert.equal(echo.calls, []);
    const next = await t.service.process({ agent: 'assistant', session: paused.sessionId, message: 'ok then' });
    assert.is(next.answer, 'fine');
  } finally {
    await t.close();
  }
});

test('a call that waits holds back the calls after it in its response; continuing runs them all, in order', async () => {
  const echo = echoTool();
  const other = { ...echoTool(), name: 'note' };
  const llm = scripted([
    { toolCalls: [{ id: 'a', name: 'echo', args: { text: 'one' } }, { id: 'b', name: 'note', args: { text: 'two' } }] },
    { text: 'both done' },
  ]);
  const t = await testKernel({
    plugins: [llm, toolsPlugin(echo, other), sqlite(), approvals()],
    agents: { assistant: { tools: ['echo', 'note'], approve: ['echo'], settings: { parallel_tools: false } } },
  });
  try {
    const paused = await t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(paused.stopReason, 'suspended');
    assert.equal([echo.calls, other.calls], [[], []], 'the second call did not run either');
    await t.kernel.service('approvals').decide(approvalOf(paused), { decision: 'approve', by: 'cli' });
    const resumed = await t.service.continue(paused.runId);
    assert.is(resumed.answer, 'both done');
    assert.equal(await shape(t, paused.sessionId), ['user', 'assistant', 'tool:a', 'tool:b', 'assistant']);
  } finally {
    await t.close();
  }
});

test('the door decides in-process: always stops asking for that tool for the run, deny gives the model the reason; nothing is stored', async () => {
  const echo = echoTool();
  const llm = scripted([
    { toolCalls: [{ id: 'a', name: 'echo', args: { text: 'one' } }] },
    { toolCalls: [{ id: 'b', name: 'echo', args: { text: 'two' } }] },
    { text: 'all done' },
    { toolCalls: [{ id: 'c', name: 'echo', args: { text: 'three' } }] },
    (req) => ({ text: String(req.messages.at(-1)!.content) }),
  ]);
  const asked: Question[] = [];
  let answer: 'always' | 'deny' = 'always';
  const t = await testKernel({
    plugins: [llm, toolsPlugin(echo), sqlite(), approvals(), door('cli', () => ({ decision: answer, by: 'tester', reason: 'no' }), asked)],
    agents: { assistant: { tools: ['echo'], approve: ['echo'] } },
  });
  try {
    const first = await t.service.process({ agent: 'assistant', message: 'go', door: 'cli' });
    assert.is(first.answer, 'all done');
    assert.equal(echo.calls, [{ text: 'one' }, { text: 'two' }]);
    assert.equal(asked.map((q) => q.kind === 'approval' && q.call.id), ['a'], 'asked once: always covers the rest of the run');
    answer = 'deny';
    const second = await t.service.process({ agent: 'assistant', session: first.sessionId, message: 'again', door: 'cli' });
    assert.equal(asked.map((q) => q.kind === 'approval' && q.call.id), ['a', 'c'], 'a new run asks again');
    assert.match(second.answer, /denied by tester: no/);
    assert.is(echo.calls.length, 2);
    assert.equal(await t.kernel.service('approvals').list({ status: 'pending' }), []);
  } finally {
    await t.close();
  }
});

test('pending_approval: deny — a new message denies what waits (decided by new-message), audited as any denial, and goes on from a whole history', async () => {
  const echo = echoTool();
  const llm = scripted([
    { toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'push' } }, { id: 'c2', name: 'echo', args: { text: 'then this' } }] },
    (req) => ({ text: req.messages.filter((m) => m.role === 'tool').map((m) => m.content).join(' | ') }),
  ]);
  const t = await testKernel({
    plugins: [llm, toolsPlugin(echo), sqlite(), audit(), approvals()],
    agents: { assistant: { tools: ['echo'], approve: ['echo'], settings: { pending_approval: 'deny' } } },
  });
  try {
    const paused = await t.service.process({ agent: 'assistant', message: 'go' });
    const id = approvalOf(paused);
    const next = await t.service.process({ agent: 'assistant', session: paused.sessionId, message: 'never mind' });
    assert.match(next.answer, /it was waiting \(echo \{"text":"push"\}: echo needs approval/);
    assert.match(next.answer, /Not run: a new message came before this call ran/);
    const decided = (await t.kernel.service('approvals').get(id))!;
    assert.equal([decided.status, decided.decidedBy], ['denied', 'new-message']);
    assert.equal(await shape(t, paused.sessionId), ['user', 'assistant', 'tool:c1', 'tool:c2', 'user', 'assistant']);
    assert.equal(echo.calls, []);
    // The decision is a sandbox event, and each call that got a result has its tool row, in the run the new message started.
    const db = t.kernel.service('database');
    const denial = await db.query<{ decision: string; origin: string; tool_call_id: string; run_id: string }>(
      "SELECT decision, origin, tool_call_id, run_id FROM sandbox_events WHERE decision <> 'ask' ORDER BY id");
    assert.equal(denial, [{ decision: 'deny', origin: `approval ${id} by new-message: a new message came instead of a decision`, tool_call_id: 'c1', run_id: next.runId }]);
    assert.equal(await db.query('SELECT tool_call_id, status, run_id FROM tool_invocations ORDER BY id'), [
      { tool_call_id: 'c1', status: 'denied', run_id: next.runId },
      { tool_call_id: 'c2', status: 'error', run_id: next.runId },
    ]);
  } finally {
    await t.close();
  }
});

test('a tool marked approval: always asks whatever the agent says; the reason names its plugin', async () => {
  const echo = Object.assign(echoTool(), { approval: 'always' as const });
  const llm = scripted([{ toolCalls: [{ name: 'echo', args: { text: 'x' } }] }, { text: 'ok' }]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo), sqlite(), approvals()], agents: { assistant: { tools: ['echo'] } } });
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.stopReason, 'suspended');
    assert.match(r.suspended![0]!.reason, /echo needs approval: its plugin \(test-tools\) asks before every call/);
  } finally {
    await t.close();
  }
});

test('without the approvals plugin nobody can approve: a rule is not enforced by anyone, an action that asks is denied, saying why', async () => {
  const echo = echoTool();
  const llm = scripted([{ toolCalls: [{ name: 'echo', args: { text: 'x' } }] }, (req) => ({ text: String(req.messages.at(-1)!.content) })]);
  const asking: Plugin = {
    name: 'asking-sandbox', version: '1.0.0', kernel: '^1', provides: ['sandbox'],
    setup(ctx) { ctx.provide('sandbox', { async enforce() { return { allow: false, ask: true, reason: 'write of "a" needs approval' }; }, async launch() { return { allow: false, reason: 'no' }; } }); },
  };
  const tool = { ...echo, actions: () => [{ kind: 'file' as const, op: 'write' as const, path: 'a' }] };
  const t = await testKernel({ plugins: [llm, toolsPlugin(tool), asking], agents: { assistant: { tools: ['echo'] } } });
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.stopReason, 'final');
    assert.match(r.answer, /needs approval; nobody could approve it \(enable the approvals plugin to ask a person\)/);
    assert.equal(echo.calls, []);
  } finally {
    await t.close();
  }
});

test.run();
