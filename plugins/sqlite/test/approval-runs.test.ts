// Runs that wait for a person, on a real SQLite file: the kernel pauses a run whose call needs
// approval (no result committed, the model sees nothing), refuses new messages meanwhile,
// resumes it once decided (approved: the call runs; denied: the model gets the reason), and
// decides in-process through onApproval when a tap answers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError, type ApprovalInfo, type RunEvent } from '@oryxos/kernel';
import { echoTool, scripted, testKernel, toolsPlugin, type TestKernel } from '@oryxos/kernel/testing';
import audit from '@oryxos/plugin-audit';
import sqlite from '../src/index.ts';

/** The roles and tool-call ids of a session's messages, in order. */
async function shape(t: TestKernel, sessionId: string): Promise<string[]> {
  return (await t.kernel.service('sessions').messages(sessionId)).map(({ message: m }) => (m.role === 'tool' ? `tool:${m.toolCallId}` : m.role));
}

async function code(promise: Promise<unknown>): Promise<string> {
  try { await promise; } catch (error) { return isOryxError(error) ? error.code : String(error); }
  return 'resolved';
}

test('approve: the run pauses with the call unanswered, refuses new messages, and resumes to its answer once approved', async () => {
  const echo = echoTool();
  const llm = scripted([
    { toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'push' } }] },
    (req) => ({ text: `done: ${req.messages.at(-1)!.content}` }),
  ]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo), sqlite(), audit()], agents: { assistant: { tools: ['echo'], approve: ['echo'] } } });
  try {
    const events: RunEvent[] = [];
    const paused = await t.service.process({ agent: 'assistant', message: 'go', onEvent: (e) => events.push(e) });
    assert.is(paused.stopReason, 'approval');
    assert.ok(paused.approval);
    assert.match(paused.approval!.summary, /^echo \{"text":"push"\}: echo needs approval: approve: \[echo\] in /);
    assert.is(paused.notice, `waiting for approval ${paused.approval!.id} (echo)`);
    assert.equal(echo.calls, [], 'nothing ran');
    assert.equal(await shape(t, paused.sessionId), ['user', 'assistant'], 'the call has no result yet');
    const asked = events.find((e) => e.type === 'approval_required');
    assert.ok(asked && asked.type === 'approval_required' && asked.approval.id === paused.approval!.id);
    assert.is(llm.requests.length, 1, 'the model was not called again');

    // The session takes no new message meanwhile, and says which approval it waits for.
    const refused = await t.service.process({ agent: 'assistant', session: paused.sessionId, message: 'hello?' }).catch((e: unknown) => e);
    assert.ok(isOryxError(refused) && refused.code === 'ORYX_E_APPROVAL_WAITING', String(refused));
    assert.match((refused as Error).message, new RegExp(paused.approval!.id));
    assert.is(await code(t.service.resume(paused.approval!.id)), 'ORYX_E_APPROVAL_NOT_RESUMABLE', 'not before it is decided');

    await t.kernel.service('approvals').decide(paused.approval!.id, { decision: 'approve', by: 'cli' });
    const resumed = await t.service.resume(paused.approval!.id);
    assert.equal([resumed.stopReason, resumed.answer, resumed.sessionId], ['final', 'done: echo: push', paused.sessionId]);
    assert.equal(echo.calls, [{ text: 'push' }]);
    assert.equal(await shape(t, paused.sessionId), ['user', 'assistant', 'tool:c1', 'assistant']);
    assert.is(await code(t.service.resume(paused.approval!.id)), 'ORYX_E_APPROVAL_NOT_RESUMABLE', 'a resumed run does not resume twice');
    const records = await t.kernel.service('runRecords').list({ sessionId: paused.sessionId });
    assert.equal(records.map((r) => [r.stopReason, r.errorCode]), [['final', undefined], ['approval', undefined]]);
    // The request and the decision are audited, with who decided; the call's own row says how it ended.
    const db = t.kernel.service('database');
    const events2 = await db.query<{ decision: string; kind: string; origin: string }>('SELECT decision, kind, origin FROM sandbox_events ORDER BY id');
    assert.equal(events2, [
      { decision: 'ask', kind: 'tool', origin: `approval ${paused.approval!.id} requested` },
      { decision: 'allow', kind: 'tool', origin: `approval ${paused.approval!.id} by cli` },
    ]);
    assert.equal(await db.query('SELECT tool_call_id, status FROM tool_invocations'), [{ tool_call_id: 'c1', status: 'ok' }]);
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
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo), sqlite()], agents: { assistant: { tools: ['echo'], approve: ['echo'] } } });
  try {
    const paused = await t.service.process({ agent: 'assistant', message: 'go' });
    await t.kernel.service('approvals').decide(paused.approval!.id, { decision: 'deny', by: 'operator', reason: 'not on a Friday' });
    const resumed = await t.service.resume(paused.approval!.id);
    assert.match(resumed.answer, /^told: Not run: this call needed a person's approval, and it was denied by operator: not on a Friday\./);
    assert.equal(echo.calls, []);
    const next = await t.service.process({ agent: 'assistant', session: paused.sessionId, message: 'ok then' });
    assert.is(next.answer, 'fine');
  } finally {
    await t.close();
  }
});

test('a call that waits holds back the calls after it in its response; resuming runs them all, in order', async () => {
  const echo = echoTool();
  const other = { ...echoTool(), name: 'note' };
  const llm = scripted([
    { toolCalls: [{ id: 'a', name: 'echo', args: { text: 'one' } }, { id: 'b', name: 'note', args: { text: 'two' } }] },
    { text: 'both done' },
  ]);
  const t = await testKernel({
    plugins: [llm, toolsPlugin(echo, other), sqlite()],
    agents: { assistant: { tools: ['echo', 'note'], approve: ['echo'], settings: { parallel_tools: false } } },
  });
  try {
    const paused = await t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(paused.stopReason, 'approval');
    assert.equal([echo.calls, other.calls], [[], []], 'the second call did not run either');
    await t.kernel.service('approvals').decide(paused.approval!.id, { decision: 'approve', by: 'cli' });
    const resumed = await t.service.resume(paused.approval!.id);
    assert.is(resumed.answer, 'both done');
    assert.equal(await shape(t, paused.sessionId), ['user', 'assistant', 'tool:a', 'tool:b', 'assistant']);
  } finally {
    await t.close();
  }
});

test('onApproval decides in-process: always stops asking for that tool, deny gives the model the reason; nothing is stored', async () => {
  const echo = echoTool();
  const llm = scripted([
    { toolCalls: [{ id: 'a', name: 'echo', args: { text: 'one' } }] },
    { toolCalls: [{ id: 'b', name: 'echo', args: { text: 'two' } }] },
    { text: 'all done' },
    { toolCalls: [{ id: 'c', name: 'echo', args: { text: 'three' } }] },
    (req) => ({ text: String(req.messages.at(-1)!.content) }),
  ]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo), sqlite()], agents: { assistant: { tools: ['echo'], approve: ['echo'] } } });
  try {
    const asked: ApprovalInfo[] = [];
    let answer: 'always' | 'deny' = 'always';
    t.kernel.hooks.onApproval.tapPromise({ name: 'test' }, async (info) => { asked.push(info); return { decision: answer, by: 'tester', reason: 'no' }; });
    const first = await t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(first.answer, 'all done');
    assert.equal(echo.calls, [{ text: 'one' }, { text: 'two' }]);
    assert.equal(asked.map((a) => a.call.id), ['a'], 'asked once: always covers the rest of the run');
    answer = 'deny';
    const second = await t.service.process({ agent: 'assistant', session: first.sessionId, message: 'again' });
    assert.equal(asked.map((a) => a.call.id), ['a', 'c'], 'a new run asks again');
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
    plugins: [llm, toolsPlugin(echo), sqlite(), audit()],
    agents: { assistant: { tools: ['echo'], approve: ['echo'], settings: { pending_approval: 'deny' } } },
  });
  try {
    const paused = await t.service.process({ agent: 'assistant', message: 'go' });
    const next = await t.service.process({ agent: 'assistant', session: paused.sessionId, message: 'never mind' });
    assert.match(next.answer, /denied by new-message/);
    assert.match(next.answer, /Not run: a new message came before this call ran/);
    const decided = (await t.kernel.service('approvals').get(paused.approval!.id))!;
    assert.equal([decided.status, decided.decidedBy], ['denied', 'new-message']);
    assert.equal(await shape(t, paused.sessionId), ['user', 'assistant', 'tool:c1', 'tool:c2', 'user', 'assistant']);
    assert.equal(echo.calls, []);
    // The decision is a sandbox event, and each call that got a result has its tool row, in the run the new message started.
    const db = t.kernel.service('database');
    const denial = await db.query<{ decision: string; origin: string; tool_call_id: string; run_id: string }>(
      "SELECT decision, origin, tool_call_id, run_id FROM sandbox_events WHERE decision <> 'ask' ORDER BY id");
    assert.equal(denial, [{ decision: 'deny', origin: `approval ${paused.approval!.id} by new-message: a new message came instead of a decision`, tool_call_id: 'c1', run_id: next.runId }]);
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
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo), sqlite()], agents: { assistant: { tools: ['echo'] } } });
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.stopReason, 'approval');
    assert.match(r.approval!.summary, /echo needs approval: its plugin \(test-tools\) asks before every call/);
  } finally {
    await t.close();
  }
});

test('without an approvals service nobody can be asked later: the call is denied, saying why', async () => {
  const echo = echoTool();
  const llm = scripted([{ toolCalls: [{ name: 'echo', args: { text: 'x' } }] }, (req) => ({ text: String(req.messages.at(-1)!.content) })]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo)], agents: { assistant: { tools: ['echo'], approve: ['echo'] } } });
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.stopReason, 'final');
    assert.match(r.answer, /nobody could approve it: no approvals service is enabled/);
    assert.equal(echo.calls, []);
  } finally {
    await t.close();
  }
});

test.run();
