// A run of one call a door makes itself (`RunInput.call`: the MCP server's exposed tools), on a
// real SQLite file with the audit and approvals plugins: the call goes through the agent's
// allow-list, beforeTool / afterTool (the audit row), the approvals, and no model is called —
// the scripted provider has no step, so a model call would fail the run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { echoTool, scripted, testKernel, toolsPlugin, type TestKernel } from '@oryxos/kernel/testing';
import approvals from '@oryxos/plugin-approvals';
import audit from '@oryxos/plugin-audit';
import sqlite from '@oryxos/plugin-sqlite';

async function roles(t: TestKernel, sessionId: string): Promise<string[]> {
  return (await t.kernel.service('sessions').messages(sessionId)).map(({ message: m }) => m.role);
}

test('a door\'s call runs the tool as the agent would, is committed and audited, and calls no model', async () => {
  const echo = echoTool();
  const llm = scripted([]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo), sqlite(), audit()], agents: { assistant: { tools: ['echo'] } } });
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'tools/call echo', call: { name: 'echo', args: { text: 'hi' } }, door: 'mcp', user: 'client' });
    assert.is(r.stopReason, 'final');
    assert.equal([r.toolResult?.content, r.toolResult?.isError, r.answer], ['echo: hi', false, 'echo: hi']);
    assert.equal(echo.calls, [{ text: 'hi' }]);
    assert.is(llm.requests.length, 0, 'no model call');
    assert.equal(await roles(t, r.sessionId), ['user', 'assistant', 'tool']);
    const trace = await t.kernel.service('audit').sessionTrace(r.sessionId);
    assert.equal(trace.toolInvocations.map((row) => [row.tool, row.status, row.run_id]), [['echo', 'ok', r.runId]]);
    assert.is((await t.kernel.service('runRecords').get(r.runId))?.stopReason, 'final');

    // Arguments the schema refuses are an error result, as for a model's call.
    const bad = await t.service.process({ agent: 'assistant', message: 'tools/call echo', call: { name: 'echo', args: { text: 1 } } });
    assert.equal([bad.stopReason, bad.toolResult?.isError], ['final', true]);
    assert.match(bad.toolResult!.content, /^Invalid arguments for echo/);
    assert.is(echo.calls.length, 1);
  } finally {
    await t.close();
  }
});

test('a door\'s call of a tool outside the agent\'s allow-list does not run', async () => {
  const echo = echoTool();
  const t = await testKernel({ plugins: [scripted([]), toolsPlugin(echo), sqlite()], agents: { assistant: { tools: [] } } });
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'tools/call echo', call: { name: 'echo', args: { text: 'hi' } } });
    assert.equal([r.stopReason, r.toolResult?.isError], ['final', true]);
    assert.match(r.toolResult!.content, /^Unknown tool "echo"/);
    assert.equal(echo.calls, []);
  } finally {
    await t.close();
  }
});

test('a door\'s call that needs approval suspends; approved, continuing it runs the call and ends without a model call', async () => {
  const echo = echoTool();
  const llm = scripted([]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo), sqlite(), audit(), approvals()], agents: { assistant: { tools: ['echo'], approve: ['echo'] } } });
  try {
    const paused = await t.service.process({ agent: 'assistant', message: 'tools/call echo', call: { name: 'echo', args: { text: 'push' } }, door: 'mcp' });
    assert.is(paused.stopReason, 'suspended');
    assert.equal(echo.calls, [], 'nothing ran');
    assert.equal(await roles(t, paused.sessionId), ['user', 'assistant']);
    const record = await t.kernel.service('runRecords').get(paused.runId);
    assert.is(record?.continuation?.direct, true);
    const id = String(paused.suspended?.[0]?.data?.approvalId);
    await t.kernel.service('approvals').decide(id, { decision: 'approve', by: 'cli:test' });
    const done = await t.service.continue(paused.runId);
    assert.is(done.stopReason, 'final');
    assert.is(done.toolResult?.content, 'echo: push');
    assert.equal(echo.calls, [{ text: 'push' }]);
    assert.is(llm.requests.length, 0, 'no model call after the approved call');
    assert.equal(await roles(t, paused.sessionId), ['user', 'assistant', 'tool']);
  } finally {
    await t.close();
  }
});

test.run();
