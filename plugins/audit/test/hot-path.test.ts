// The hot path of a run on SQLite with the audit trail: what is durable when, and that every
// statement it runs finds its rows through an index. Another connection reads the file, as
// another process (or a restart after a crash) would.
import path from 'node:path';
import Libsql from 'libsql';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Plugin } from '@oryxos/kernel';
import type { Provider } from '@oryxos/provider-spec';
import { allowAll, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '../src/index.ts';
import { approvalsSql, sessionApprovalsSql } from '../src/queries.ts';
import { echo, tempDir } from './helpers.ts';

/** A model that calls `echo` on every step but the last, and runs `seen(step)` before answering. */
function model(steps: number, seen: (step: number) => void = () => {}): Plugin {
  let step = 0;
  const provider: Provider = {
    name: 'stepper', defaultModel: 'stepper-model',
    async chat(request) {
      step = step % steps + 1;
      seen(step);
      const last = step === steps;
      return {
        message: last ? { role: 'assistant', content: 'done' } : { role: 'assistant', content: '', toolCalls: [{ id: `c${step}`, name: 'echo', args: { text: `hi ${step}` } }] },
        usage: { inputTokens: 10, outputTokens: 2 }, finishReason: last ? 'stop' : 'tool_calls', model: request.model,
      };
    },
  };
  return { name: 'stepper', version: '1.0.0', kernel: '^1', setup(ctx) { ctx.registerProvider(provider); } };
}

test('before each model call, the file already holds every earlier message with its llm_calls and tool_invocations rows', async () => {
  const { dir, cleanup } = await tempDir();
  const file = path.join(dir, '.oryxos', 'oryx.db');
  let other: Libsql.Database | undefined;
  const snapshots: unknown[] = [];
  const count = (table: string) => (other!.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  const seen = (step: number) => {
    other ??= new Libsql(file);
    const roles = (other.prepare('SELECT role FROM messages ORDER BY session_id, seq').all() as { role: string }[]).map((r) => r.role);
    snapshots.push({ step, roles: roles.join(','), llm: count('llm_calls'), tools: count('tool_invocations') });
  };
  const t = await testKernel({ dir, plugins: [model(3, seen), toolsPlugin(echo), allowAll(), sqlite(), audit()], agents: { assistant: { tools: ['echo'] } } });
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.answer, 'done');
    assert.equal(snapshots, [
      { step: 1, roles: 'user', llm: 0, tools: 0 },
      { step: 2, roles: 'user,assistant,tool', llm: 1, tools: 1 },
      { step: 3, roles: 'user,assistant,tool,assistant,tool', llm: 2, tools: 2 },
    ]);
    assert.is(count('llm_calls'), 3, 'the last call is in the file once the run is over');
  } finally {
    other?.close();
    await t.close();
    await cleanup();
  }
});

test('every statement of a run (sessions, leases, messages, audit rows) uses an index: no full scan, no temporary sort', async () => {
  const { dir, cleanup } = await tempDir();
  const statements = new Set<string>();
  const prepare = Libsql.prototype.prepare;
  const t = await testKernel({ dir, plugins: [model(3), toolsPlugin(echo), allowAll(), sqlite(), audit()], agents: { assistant: { tools: ['echo'] } } });
  const other = new Libsql(path.join(dir, '.oryxos', 'oryx.db'));
  try {
    Libsql.prototype.prepare = function (this: Libsql.Database, sql: string) {
      statements.add(sql);
      return prepare.call(this, sql);
    } as typeof prepare;
    // Two runs on one session: the second reads history the first one wrote.
    const first = await t.service.process({ agent: 'assistant', message: 'go' });
    await t.service.process({ agent: 'assistant', session: first.sessionId, message: 'again' });
    Libsql.prototype.prepare = prepare;

    const planned = [...statements].filter((sql) => /^\s*(SELECT|UPDATE|DELETE|INSERT[\s\S]*\bSELECT\b|INSERT[\s\S]*\bON CONFLICT\b)/i.test(sql));
    for (const expected of ['UPDATE sessions', 'MAX(seq)', 'session_leases']) {
      assert.ok(planned.some((sql) => sql.includes(expected)), `the run ran no statement with ${expected}: ${[...statements].join('\n')}`);
    }
    for (const sql of planned) {
      const params = Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => null);
      const plan = (other.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((row) => row.detail);
      const bad = plan.filter((d) => /^SCAN (?!CONSTANT ROW)\S+$/.test(d) || /TEMP B-TREE/.test(d));
      assert.equal(bad, [], `${sql.replace(/\s+/g, ' ')}\n  plan: ${plan.join(' | ')}`);
    }
  } finally {
    Libsql.prototype.prepare = prepare;
    other.close();
    await t.close();
    await cleanup();
  }
});

test('oryx audit tools and the session trace find who approved their calls through the tool-call index (migrations 4 and 5), not a scan of sandbox_events', async () => {
  const { dir, cleanup } = await tempDir();
  const t = await testKernel({ dir, plugins: [model(1), allowAll(), sqlite(), audit()] });
  try {
    const db = t.kernel.service('database');
    // The trace's statement seeks by call id and session: a call id reused in every session does not walk them all.
    const statements = [
      [approvalsSql(2), ['c1', 'c2'], 'USING INDEX sandbox_events_by_call_session (tool_call_id=?)'],
      [sessionApprovalsSql(2), ['s', 's', 'r1', 'r2'], 'USING INDEX sandbox_events_by_call_session (tool_call_id=? AND session_id=?)'],
    ] as const;
    for (const [sql, params, seek] of statements) {
      const plan = await db.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, [...params]);
      assert.ok(plan.some((p) => p.detail.includes(seek)), JSON.stringify(plan));
      assert.not.ok(plan.some((p) => /^SCAN (sandbox_events|tool_invocations)/.test(p.detail)), JSON.stringify(plan));
    }
  } finally {
    await t.close();
    await cleanup();
  }
});

test.run();
