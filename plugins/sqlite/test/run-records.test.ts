// Every run leaves a record in the `runs` table, whatever its end; deleting the session deletes them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OryxError } from '@oryxos/provider-spec';
import { echoTool, scripted, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import sqlite from '../src/index.ts';

test('runs: final, limit, error and aborted runs each get a row with their stop reason and what they used', async () => {
  const controller = new AbortController();
  const llm = scripted([
    { text: 'hello', usage: { inputTokens: 10, outputTokens: 2 } },
    { toolCalls: [{ name: 'echo', args: { text: 'a' } }] }, { text: 'what I have' },
    { error: new OryxError('ORYX_E_LLM_AUTH', 'bad key') },
    () => { setImmediate(() => controller.abort()); return { text: 'late', delayMs: 10_000 }; },
  ]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echoTool()), sqlite()], agents: { assistant: { tools: ['*'], settings: { max_iterations: 1 } } } });
  try {
    const first = await t.service.process({ agent: 'assistant', message: 'hi' });
    const session = first.sessionId;
    const limited = await t.service.process({ agent: 'assistant', session, message: 'work' });
    const failed = await t.service.process({ agent: 'assistant', session, message: 'again' });
    const aborted = await t.service.process({ agent: 'assistant', session, message: 'slow', signal: controller.signal });
    const records = await t.kernel.service('runRecords').list({ sessionId: session });
    assert.equal(records.map((r) => r.runId), [aborted.runId, failed.runId, limited.runId, first.runId], 'newest first');
    assert.equal(records.map((r) => [r.stopReason, r.iterations, r.toolCalls, r.errorCode ?? null]), [
      ['aborted', 1, 0, 'ORYX_E_RUN_ABORTED'], ['error', 1, 0, 'ORYX_E_LLM_AUTH'], ['limit', 2, 1, null], ['final', 1, 0, null],
    ]);
    const last = records.at(-1)!;
    assert.equal([last.inputTokens, last.outputTokens, last.agent, last.sessionId], [10, 2, 'assistant', session]);
    assert.is(records[2]!.notice, 'stopped at max_iterations (1 model calls)');
    assert.ok(Date.parse(last.finishedAt!) >= Date.parse(last.startedAt));
    assert.is((await t.kernel.service('runRecords').list()).length, 4);
    await t.kernel.service('sessions').delete(session);
    assert.equal(await t.kernel.service('runRecords').list(), [], 'the runs went with their session');
  } finally {
    await t.close();
  }
});

test('a run that ends leaves none of its answered call marks behind (the store contract: an unanswered one stays)', async () => {
  const llm = scripted([
    { toolCalls: [{ name: 'echo', args: { text: 'a' } }, { name: 'echo', args: { text: 'b' } }] }, { text: 'done' },
  ]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echoTool()), sqlite()], agents: { assistant: { tools: ['*'] } } });
  try {
    const db = t.kernel.service('database');
    const marks = async (session: string) => Number((await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM call_marks WHERE session_id = ?', [session]))[0]!.n);
    const run = await t.service.process({ agent: 'assistant', message: 'echo twice' });
    assert.is(run.stopReason, 'final');
    assert.is(run.budget.toolCalls, 2);
    assert.is(await marks(run.sessionId), 0, 'both calls were marked, answered, and cleared at the end');
  } finally {
    await t.close();
  }
});

test('runs that started in the same millisecond are listed newest first by the order they were written', async () => {
  const t = await testKernel({ plugins: [scripted([]), sqlite()] });
  try {
    const session = await t.kernel.service('sessions').create({ agent: 'assistant' });
    const at = '2026-11-30T12:00:00.000Z';
    // Ids in descending order, so an order by id alone would list them oldest first.
    const ids = ['run-z', 'run-m', 'run-a'];
    for (const id of ids) {
      await t.kernel.service('database').execute(
        `INSERT INTO runs (id, session_id, agent, started_at, finished_at, stop_reason, iterations, tool_calls, input_tokens, output_tokens, retries, duration_ms)
         VALUES (?, ?, 'assistant', ?, ?, 'final', 1, 0, 0, 0, 0, 0)`, [id, session.id, at, at]);
    }
    assert.equal((await t.kernel.service('runRecords').list({ sessionId: session.id })).map((r) => r.runId), ['run-a', 'run-m', 'run-z']);
    assert.equal((await t.kernel.service('runRecords').list()).map((r) => r.runId), ['run-a', 'run-m', 'run-z']);
  } finally {
    await t.close();
  }
});

test.run();
