// The postgres plugin with the other plugins on a real PostgreSQL server: two store plugins
// refused together, the audit trail, its queries and the session trace, a scheduled task. (The
// postgres plugin's own tests, in plugins/postgres/test, use no other plugin.)
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { echoTool, scripted, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import audit from '@oryxos/plugin-audit';
import { listLlmCalls, listToolInvocations, sessionTrace, summarize } from '@oryxos/plugin-audit/trail';
import postgres from '@oryxos/plugin-postgres';
import scheduler from '@oryxos/plugin-scheduler';
import sqlite from '@oryxos/plugin-sqlite';
import { decidedSessions, decisionsOf, EXPECTED } from '../plugins/audit/test/decided-sessions.ts';
import { freshDatabase } from '../plugins/postgres/test/pg.ts';
import { rejection, tempDir } from '../plugins/postgres/test/helpers.ts';

test('two store plugins are refused together, in either order, before sqlite opens its file', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    let e = await rejection(() => testKernel({ plugins: [sqlite(), postgres({ url: 'postgres://x:y@127.0.0.1:1/db' })], dir }));
    assert.is(e.code, 'ORYX_E_REGISTRY_DUPLICATE', 'two store plugins are refused before sqlite opens its file');
    assert.match(e.message, /sqlite and postgres/);
    assert.not.ok(existsSync(path.join(dir, '.oryxos', 'oryx.db')));
    e = await rejection(() => testKernel({ plugins: [postgres({ url: 'postgres://x:y@127.0.0.1:1/db' }), sqlite()], dir }));
    assert.is(e.code, 'ORYX_E_REGISTRY_DUPLICATE');
  } finally {
    await cleanup();
  }
});

test('a run on PostgreSQL: audit rows, the audit queries and the summary, a scheduled task and its execution row', async () => {
  const database = await freshDatabase();
  const { dir, cleanup } = await tempDir();
  try {
    const llm = scripted([
      { toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'x\0y' } }], usage: { cacheReadTokens: 30 } }, { text: 'done', usage: { cacheReadTokens: 12 } },
      { text: 'scheduled answer' },
    ]);
    const k = await testKernel({
      plugins: [llm, toolsPlugin(echoTool()), postgres({ url: database.url }), audit(), scheduler({ tasks: [{ name: 'nightly', agent: 'assistant', message: 'report', cron: '0 3 * * *' }] })],
      dir, agents: { assistant: { tools: ['*'] } },
    });
    try {
      const r = await k.service.process({ agent: 'assistant', message: 'echo please' });
      assert.is(r.answer, 'done');
      const db = k.kernel.service('database');
      assert.is((await listLlmCalls(db, { session: r.sessionId.slice(0, 8) })).length, 2, 'a session filter by id prefix');
      const [tool] = await listToolInvocations(db, { tool: 'echo' });
      assert.is(tool?.input, '{"text":"x\\u0000y"}');
      const [summary] = await summarize(db, {});
      assert.equal([summary?.llm_calls, summary?.tool_calls, summary?.tool_errors, summary?.denials], [2, 1, 0, 0]);
      assert.equal([summary?.cache_read_tokens, summary?.cache_write_tokens], [42, null], 'cached tokens summed as numbers; none reported: null');
      assert.is((await k.kernel.service('runRecords').get(r.runId))?.cacheReadTokens, 42);
      const exec = await k.kernel.service('scheduler').run('nightly');
      assert.is(exec.status, 'ok');
      assert.is(exec.answer, 'scheduled answer');
    } finally {
      await k.close({ keep: true });
    }
  } finally {
    await cleanup();
    await database.drop();
  }
});

test('the session trace on PostgreSQL: who approved or denied each call, per session (the same call id decided otherwise in another), null when nobody was asked', async () => {
  const database = await freshDatabase();
  try {
    const { k, first, second } = await decidedSessions([postgres({ url: database.url }), audit()]);
    try {
      const db = k.kernel.service('database');
      assert.equal(decisionsOf(await sessionTrace(db, first)), EXPECTED.first);
      assert.equal(decisionsOf(await sessionTrace(db, second)), EXPECTED.second);
    } finally {
      await k.close();
    }
  } finally {
    await database.drop();
  }
});

test.run();
