// The plugin on a real PostgreSQL server: options, start-up failures with their codes, migrations
// (concurrent, refused when newer, left to `oryx db migrate`), time limits, and the other
// plugins' tables and queries on PostgreSQL.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Migration } from '@oryxos/contracts';
import type { Plugin } from '@oryxos/kernel';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import postgres, { env, openPostgres, resolveOptions } from '../src/index.ts';
import { rejection, tempDir } from './helpers.ts';
import { freshDatabase, urlOf } from './pg.ts';

/** A plugin that owns a table and migrates it through the database service, as audit or the scheduler do. */
function notes(migrations: readonly Migration[] = [{ version: 1, name: 'notes', statements: { postgres: ['CREATE TABLE notes (id TEXT PRIMARY KEY)'] } }]): Plugin {
  return { name: 'notes', version: '1.0.0', kernel: '^1', setup(ctx) { ctx.hooks.init.tapPromise(async () => { await ctx.service('database').migrate('notes', migrations); }); } };
}

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

test('start-up failures: an unset variable, an unreachable server and a wrong password, each with its code and no password shown', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    delete process.env.ORYX_TEST_UNSET_URL;
    let e = await rejection(() => testKernel({ plugins: [postgres({ url: env('ORYX_TEST_UNSET_URL') })], dir }));
    assert.is(e.code, 'ORYX_E_CONFIG_INVALID');
    assert.is(e.data.code, 'ORYX_E_PG_OPTIONS');
    assert.is(e.data.plugin, 'postgres');
    assert.match(e.message, 'ORYX_TEST_UNSET_URL');

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
    const plugins = () => [scripted([]), postgres({ url: database.url, poolSize: 2 }), notes()];
    const kernels = await Promise.all([1, 2, 3].map(() => testKernel({ plugins: plugins(), dir })));
    const db = kernels[0]!.kernel.service('database');
    const recorded = await db.query<{ owner: string; version: number }>('SELECT owner, version FROM schema_migrations ORDER BY owner, version');
    assert.equal(recorded.map((r) => `${r.owner}:${r.version}`), ['notes:1', 'postgres:1', 'postgres:2', 'postgres:3', 'postgres:4', 'runs:1', 'runs:2']);
    await db.execute("INSERT INTO schema_migrations (owner, version, name, applied_at) VALUES ('notes', 6, 'from the future', 'now')");
    for (const k of kernels) await k.close({ keep: true });

    const tables = async () => {
      const probe = await openPostgres({ url: database.url, poolSize: 1, statementTimeoutMs: 0, connectTimeoutMs: 5000, applicationName: 't' });
      try { return JSON.stringify(await probe.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")); } finally { await probe.close(); }
    };
    const before = await tables();
    const e = await rejection(() => testKernel({ plugins: plugins(), dir }));
    assert.is(e.code, 'ORYX_E_PG_SCHEMA_NEWER');
    assert.match(e.message, 'notes schema version 6, newer than the 1');
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
    assert.match(e.message, 'postgres migrations 1 (sessions), 2 (session-parents), 3 (doors-turns-tags-call-marks-messages-by-key)');
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

test.run();
