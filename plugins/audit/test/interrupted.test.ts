// A tool call whose process died between its start mark and its result gets its
// tool_invocations row at the next start, status `interrupted`, once; a call whose run may still
// be going on (its process alive, holding the session) gets none, nor does a read-only start.
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunRecordStore, SessionStore } from '@oryxos/contracts';
import { scripted, testKernel, type TestKernel } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '../src/index.ts';
import { tempDir } from './helpers.ts';

/** The store's services as the contracts declare them (the kernel's own types are older). */
const stores = (k: TestKernel) => ({
  sessions: k.kernel.service('sessions') as unknown as SessionStore,
  runs: k.kernel.service('runRecords') as unknown as RunRecordStore,
});

const interrupted = (k: TestKernel) => k.kernel.service('database').query<{ session_id: string; run_id: string; tool_call_id: string; tool: string; agent: string; status: string; output: string }>(
  "SELECT session_id, run_id, tool_call_id, tool, agent, status, output FROM tool_invocations WHERE status = 'interrupted' ORDER BY id");

test('a call marked started whose process died: one interrupted row at the next start, never a second; a live run\'s call and a read-only start get none', async () => {
  const { dir, cleanup } = await tempDir();
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
  try {
    let k = await testKernel({ plugins: [scripted([]), sqlite(), audit()], dir });
    const { sessions, runs } = stores(k);
    const crashed = await sessions.create({ agent: 'assistant' });
    await sessions.append(crashed.id, [{ role: 'user', content: 'post it' }, { role: 'assistant', content: '', toolCalls: [{ id: 'call_0', name: 'http_request', args: { method: 'POST' } }] }]);
    await runs.begin({ runId: 'run-dead', sessionId: crashed.id, agent: 'assistant', startedAt: new Date().toISOString() });
    await k.kernel.service('database').execute('UPDATE runs SET pid = ? WHERE id = ?', [dead, 'run-dead']); // as the killed process left it
    await sessions.markStarted({ runId: 'run-dead', sessionId: crashed.id, toolCallId: 'call_0', tool: 'http_request', argsHash: 'h0', startedAt: new Date().toISOString() });
    // A run still going on in this (live) process, holding its session: its started call is not interrupted.
    const live = await sessions.create({ agent: 'assistant' });
    await sessions.append(live.id, [{ role: 'user', content: 'go' }, { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'shell', args: {} }] }]);
    await runs.begin({ runId: 'run-live', sessionId: live.id, agent: 'assistant', startedAt: new Date().toISOString() });
    await sessions.markStarted({ runId: 'run-live', sessionId: live.id, toolCallId: 'call_1', tool: 'shell', argsHash: 'h1', startedAt: new Date().toISOString() });
    const release = await sessions.lock!(live.id);

    const readOnly = await testKernel({ plugins: [scripted([]), sqlite(), audit()], dir, readOnly: true });
    try {
      assert.equal(await interrupted(readOnly), [], 'a read-only start writes nothing');
    } finally {
      await readOnly.close({ keep: true });
    }

    const next = await testKernel({ plugins: [scripted([]), sqlite(), audit()], dir });
    try {
      const rows = await interrupted(next);
      assert.equal(rows.map((r) => [r.session_id, r.run_id, r.tool_call_id, r.tool, r.agent, r.status]), [[crashed.id, 'run-dead', 'call_0', 'http_request', 'assistant', 'interrupted']]);
      assert.match(rows[0]!.output, 'it may have run');
      assert.ok(next.warnings.some((w) => w.includes('1 tool call(s) were interrupted')), next.warnings.join('\n'));
      assert.ok(next.warnings.some((w) => w.includes('run run-dead') && w.includes(`process ${dead} on ${hostname()}`)), 'and its run was recorded as crashed');
      assert.is((await stores(next).runs.get('run-dead'))?.stopReason, 'crashed');
      assert.is((await stores(next).runs.get('run-live'))?.stopReason, 'running');
    } finally {
      await next.close({ keep: true });
    }

    const again = await testKernel({ plugins: [scripted([]), sqlite(), audit()], dir });
    try {
      assert.is((await interrupted(again)).length, 1, 'once');
      assert.not.ok(again.warnings.some((w) => w.includes('were interrupted')));
    } finally {
      await again.close({ keep: true });
    }
    await release();
    await k.close({ keep: true });
    k = await testKernel({ plugins: [scripted([]), sqlite(), audit()], dir });
    try {
      // Its process gone from the session (lease released) and never ended: now it is interrupted too.
      assert.equal((await interrupted(k)).map((r) => r.run_id), ['run-dead', 'run-live']);
    } finally {
      await k.close({ keep: true });
    }
  } finally {
    await cleanup();
  }
});

test.run();
