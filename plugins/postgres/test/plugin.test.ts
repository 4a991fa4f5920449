// The plugin on a real PostgreSQL server: options, start-up failures with their codes, migrations
// (concurrent, refused when newer, left to `oryx db migrate`), time limits, and the other
// plugins' tables and queries on PostgreSQL.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { echoTool, scripted, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import approvals from '@oryxos/plugin-approvals';
import audit from '@oryxos/plugin-audit';
import { listLlmCalls, listToolInvocations, sessionTrace, summarize } from '@oryxos/plugin-audit/trail';
import notify from '@oryxos/plugin-notify';
import scheduler from '../../scheduler/src/index.ts';
import sqlite from '@oryxos/plugin-sqlite';
import postgres, { env, openPostgres, resolveOptions } from '../src/index.ts';
import { rejection, tempDir } from '../../sqlite/test/helpers.ts';
import { decidedSessions, decisionsOf, EXPECTED } from '../../audit/test/decided-sessions.ts';
import { freshDatabase, urlOf } from './pg.ts';

test('options are checked when the factory is called, naming the field', () => {
  const cases: [unknown, string][] = [
    [{ url: 'mysql://db/x' }, 'url'], [{ url: 'postgres://db/x', poolSize: 0 }, 'poolSize'],
    [{ url: 'postgres://db/x', statementTimeout: 5 }, 'statementTimeout'], [{}, 'url'], [{ url: 'postgres://db/x', ssl: 'sometimes' }, 'ssl'],
  ];
  for (const [options, field] of cases) {
    const e = (() => { try { resolveOptions(options); } catch (error) { return error as { code: string; data: { field: string } }; } })();
    assert.is(e?.code, 'ORYX_E_PG_OPTIONS', JSON.stringify(options));
    assert.is(e?.data.field, field);
  }
  assert.is(resolveOptions({ url: env('X') }).poolSize, 10);
});

test('start-up failures: an unset variable, two store plugins, an unreachable server and a wrong password, each with its code and no password shown', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    delete process.env.ORYX_TEST_UNSET_URL;
    let e = await rejection(() => testKernel({ plugins: [postgres({ url: env('ORYX_TEST_UNSET_URL') })], dir }));
    assert.is(e.code, 'ORYX_E_CONFIG_INVALID');
    assert.is(e.data.code, 'ORYX_E_PG_OPTIONS');
    assert.is(e.data.plugin, 'postgres');
    assert.match(e.message, 'ORYX_TEST_UNSET_URL');

    e = await rejection(() => testKernel({ plugins: [sqlite(), postgres({ url: 'postgres://x:y@127.0.0.1:1/db' })], dir }));
    assert.is(e.code, 'ORYX_E_REGISTRY_DUPLICATE', 'two store plugins are refused before sqlite opens its file');
    assert.match(e.message, /sqlite and postgres/);
    assert.not.ok(existsSync(path.join(dir, '.oryxos', 'oryx.db')));
    e = await rejection(() => testKernel({ plugins: [postgres({ url: 'postgres://x:y@127.0.0.1:1/db' }), sqlite()], dir }));
    assert.is(e.code, 'ORYX_E_REGISTRY_DUPLICATE');

    e = await rejection(() => testKernel({ plugins: [postgres({ url: 'postgres://oryx:hunter2secret@127.0.0.1:1/oryx', connectTimeoutMs: 2000 })], dir }));
    assert.is(e.code, 'ORYX_E_PG_CONNECT');
    assert.match(e.message, 'refused the connection');
    assert.not.match(e.message, 'hunter2secret');
    assert.match(e.message, 'oryx:***@127.0.0.1:1');

    const wrong = urlOf('postgres').replace(/:\/\/([^:]+):[^@]*@/, '://$1:not-the-password@');
    e = await rejection(() => testKernel({ plugins: [postgres({ url: wrong })], dir }));
    assert.is(e.code, 'ORYX_E_PG_CONNECT');
    assert.match(e.message, 'authentication failed');
    assert.not.match(e.message, 'not-the-password');
  } finally {
    await cleanup();
  }
});

test('three kernels starting at once on an empty database: each migration applied once; a newer schema is refused untouched', async () => {
  const database = await freshDatabase();
  const { dir, cleanup } = await tempDir();
  try {
    const plugins = () => [scripted([]), postgres({ url: database.url, poolSize: 2 }), audit(), scheduler(), notify(), approvals()];
    const kernels = await Promise.all([1, 2, 3].map(() => testKernel({ plugins: plugins(), dir })));
    const db = kernels[0]!.kernel.service('database');
    const recorded = await db.query<{ owner: string; version: number }>('SELECT owner, version FROM schema_migrations ORDER BY owner, version');
    assert.equal(recorded.map((r) => `${r.owner}:${r.version}`), ['approvals:1', 'approvals:2', 'audit:1', 'audit:2', 'audit:3', 'audit:4', 'audit:5', 'audit:6', 'notify:1', 'postgres:1', 'postgres:2', 'postgres:3', 'runs:1', 'runs:2', 'scheduler:1']);
    await db.execute("INSERT INTO schema_migrations (owner, version, name, applied_at) VALUES ('audit', 7, 'from the future', 'now')");
    for (const k of kernels) await k.close({ keep: true });

    const tables = async () => {
      const probe = await openPostgres({ url: database.url, poolSize: 1, statementTimeoutMs: 0, connectTimeoutMs: 5000, applicationName: 't' });
      try { return JSON.stringify(await probe.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")); } finally { await probe.close(); }
    };
    const before = await tables();
    const e = await rejection(() => testKernel({ plugins: plugins(), dir }));
    assert.is(e.code, 'ORYX_E_PG_SCHEMA_NEWER');
    assert.match(e.message, 'audit schema version 7, newer than the 6');
    assert.is(await tables(), before, 'nothing was changed');

    const own = await openPostgres({ url: database.url, poolSize: 1, statementTimeoutMs: 0, connectTimeoutMs: 5000, applicationName: 't' });
    await own.execute("INSERT INTO schema_migrations (owner, version, name, applied_at) VALUES ('postgres', 7, 'from the future', 'now')");
    await own.close();
    const newer = await rejection(() => testKernel({ plugins: [scripted([]), postgres({ url: database.url })], dir }));
    assert.is(newer.code, 'ORYX_E_PG_SCHEMA_NEWER', 'the store\'s own tables are checked in setup, before any init');
  } finally {
    await cleanup();
    await database.drop();
  }
});

test('autoMigrate: false refuses to start on pending migrations, naming them; statement timeouts have their own code', async () => {
  const database = await freshDatabase();
  const { dir, cleanup } = await tempDir();
  try {
    const e = await rejection(() => testKernel({ plugins: [scripted([]), postgres({ url: database.url, autoMigrate: false })], dir }));
    assert.is(e.code, 'ORYX_E_PG_MIGRATION_PENDING');
    assert.match(e.message, 'postgres migrations 1 (sessions), 2 (session-parents)');
    assert.match(e.hint, 'oryx db migrate');
    const k = await testKernel({ plugins: [scripted([]), postgres({ url: database.url, statementTimeoutMs: 200 })], dir });
    try {
      const slow = await rejection(() => k.kernel.service('database').query('SELECT pg_sleep(2)'));
      assert.is(slow.code, 'ORYX_E_PG_TIMEOUT');
      assert.match(slow.message, '57014');
      assert.equal(await k.kernel.service('database').query('SELECT 1 AS one'), [{ one: 1 }], 'the pool goes on');
    } finally {
      await k.close({ keep: true });
    }
  } finally {
    await cleanup();
    await database.drop();
  }
});

test('a run on PostgreSQL: audit rows, the audit queries and the summary, a scheduled task and its execution row', async () => {
  const database = await freshDatabase();
  const { dir, cleanup } = await tempDir();
  try {
    const llm = scripted([
      { toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'x\0y' } }] }, { text: 'done' },
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
