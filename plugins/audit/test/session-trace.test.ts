// The `audit` service's sessionTrace: the rows of a session's last runs, for the web console's
// timeline. On a real sqlite file, with runs written by the kernel.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scripted, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import audit, { type SessionTraceRows } from '../src/index.ts';
import { decidedSessions, decisionsOf, EXPECTED } from './decided-sessions.ts';
import { echo, guarded } from './helpers.ts';

type TraceService = { sessionTrace(sessionId: string, query?: { runs?: number }): Promise<SessionTraceRows> };

test('sessionTrace gives the rows of the last runs of one session, oldest first, and says when older ones were left out', async () => {
  const turn = (id: string) => [
    { toolCalls: [{ id: `${id}-echo`, name: 'echo', args: { text: id } }, { id: `${id}-deny`, name: 'guarded', args: { path: '/etc/passwd' } }] },
    { text: `answer ${id}` },
  ];
  const t = await testKernel({ plugins: [scripted([...turn('a'), ...turn('b'), { text: 'elsewhere' }, ...turn('c')]), toolsPlugin(echo, guarded), sqlite(), audit()] });
  try {
    const first = await t.service.process({ agent: 'assistant', message: 'one' });
    await t.service.process({ agent: 'assistant', session: first.sessionId, message: 'two' });
    await t.service.process({ agent: 'assistant', message: 'another session' });
    await t.service.process({ agent: 'assistant', session: first.sessionId, message: 'three' });
    const service = t.kernel.service('audit') as unknown as TraceService;

    const all = await service.sessionTrace(first.sessionId);
    assert.is(all.runs.length, 3);
    assert.is(all.moreRuns, false);
    assert.is(all.llmCalls.length, 6, 'two model calls per run, none from the other session');
    // The two calls of a step run side by side: rows are in the order they ended, steps in order.
    const bySteps = (rows: typeof all.toolInvocations) => rows.map((r) => [r.tool_call_id, r.status, r.approval]).sort((x, y) => String(x[0]).localeCompare(String(y[0])));
    assert.equal(bySteps(all.toolInvocations), [
      ['a-deny', 'denied', null], ['a-echo', 'ok', null], ['b-deny', 'denied', null], ['b-echo', 'ok', null], ['c-deny', 'denied', null], ['c-echo', 'ok', null],
    ], 'a sandbox denial is not a person\'s');
    assert.equal([...new Set(all.llmCalls.map((r) => r.run_id))], all.runs, 'runs in the order they ran');

    const last = await service.sessionTrace(first.sessionId, { runs: 2 });
    assert.is(last.runs.length, 2);
    assert.equal(last.runs, all.runs.slice(1));
    assert.is(last.moreRuns, true);
    assert.equal(last.toolInvocations.map((r) => r.tool_call_id).sort(), ['b-deny', 'b-echo', 'c-deny', 'c-echo']);

    assert.equal(await service.sessionTrace('no-such-session'), { runs: [], llmCalls: [], toolInvocations: [], moreRuns: false });
    assert.equal((await service.sessionTrace(first.sessionId.slice(0, 8))).runs, [], 'an id, not a prefix');
  } finally {
    await t.close();
  }
});

test('each tool call carries who approved or denied it: the same call id decided otherwise in another session, or in another run of the session, stays apart; null when nobody was asked', async () => {
  // sqlite() on its file in the temp project
  const { k, first, second } = await decidedSessions([sqlite(), audit()]);
  try {
    const service = k.kernel.service('audit') as unknown as TraceService;
    assert.equal(decisionsOf(await service.sessionTrace(first)), EXPECTED.first);
    assert.equal(decisionsOf(await service.sessionTrace(second)), EXPECTED.second);
    const last = await service.sessionTrace(second, { runs: 1 });
    assert.equal(decisionsOf(last), EXPECTED.second.slice(2), 'the approvals of the runs shown');
  } finally {
    await k.close();
  }
});

test.run();
