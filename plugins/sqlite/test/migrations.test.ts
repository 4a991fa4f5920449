import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Libsql from 'libsql';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import sqlite, { MIGRATIONS, SCHEMA_VERSION, migrate, openDatabase } from '../src/index.ts';
import { rejection, tempDir } from './helpers.ts';

const TABLES = ['llm_calls', 'messages', 'messages_quarantine', 'notify_channels', 'sandbox_events', 'scheduled_tasks', 'schema_migrations', 'session_leases', 'sessions', 'task_executions', 'tool_invocations'];

async function tables(file: string): Promise<string[]> {
  const db = new Libsql(file);
  try {
    return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
  } finally {
    db.close();
  }
}

test('an empty file is migrated to the current schema at start', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const file = path.join(dir, '.oryxos', 'oryx.db');
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '');
    const k = await testKernel({ plugins: [scripted([]), sqlite()], dir });
    const versions = await k.kernel.service('database').query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    assert.equal(versions.map((v) => v.version), MIGRATIONS.map((m) => m.version));
    const [{ journal_mode }] = await k.kernel.service('database').query<{ journal_mode: string }>('PRAGMA journal_mode');
    assert.is(journal_mode, 'wal');
    await k.close({ keep: true });
    assert.equal(await tables(file), TABLES);
  } finally {
    await cleanup();
  }
});

test('an older schema is upgraded step by step and keeps its data; a second start has nothing to do', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const file = path.join(dir, '.oryxos', 'oryx.db');
    const old = await openDatabase({ kind: 'file', path: file }, { driver: 'libsql', busyTimeoutMs: 1000 });
    assert.equal(await migrate(old, MIGRATIONS.slice(0, 1)), [1]);
    await old.execute("INSERT INTO sessions (id, agent, title, created_at, updated_at) VALUES ('old', 'assistant', 'kept', '2020-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z')");
    await old.close();
    assert.not.ok((await tables(file)).includes('llm_calls'));

    const k = await testKernel({ plugins: [scripted([]), sqlite()], dir });
    const db = k.kernel.service('database');
    assert.equal((await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).map((r) => r.version), [1, 2, 3, 4, 5]);
    assert.is((await k.kernel.service('sessions').get('old'))?.title, 'kept');
    await k.close({ keep: true });
    const again = await openDatabase({ kind: 'file', path: file }, { driver: 'client', busyTimeoutMs: 1000 });
    assert.equal(await migrate(again), []);
    await again.close();
  } finally {
    await cleanup();
  }
});

test('a database from a newer version is refused with a clear error and left byte-for-byte untouched', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const file = path.join(dir, '.oryxos', 'oryx.db');
    await mkdir(path.dirname(file), { recursive: true });
    // written by "the future": rollback journal (not WAL), an unknown table, version 99
    const future = new Libsql(file);
    future.exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);
      INSERT INTO schema_migrations VALUES (1, 'sessions', 'x'), (99, 'future', 'x');
      CREATE TABLE future_things (a TEXT); INSERT INTO future_things VALUES ('precious');`);
    future.close();
    const before = createHash('sha256').update(await readFile(file)).digest('hex');

    for (const driver of ['libsql', 'client'] as const) {
      const error = await rejection(() => testKernel({ plugins: [scripted([]), sqlite({ driver })], dir }));
      assert.is(error.code, 'ORYX_E_SQLITE_SCHEMA_NEWER');
      assert.match(error.message, 'schema version 99');
      assert.match(error.message, `newer than the ${SCHEMA_VERSION}`);
      assert.ok(error.hint?.includes('upgrade'));
    }
    const after = createHash('sha256').update(await readFile(file)).digest('hex');
    assert.is(after, before);
    const check = new Libsql(file);
    try {
      assert.equal(check.prepare('PRAGMA journal_mode').all(), [{ journal_mode: 'delete' }]);
      assert.equal(check.prepare('SELECT a FROM future_things').all(), [{ a: 'precious' }]);
    } finally {
      check.close();
    }
  } finally {
    await cleanup();
  }
});

test('options are validated when the factory is called, naming the field', () => {
  const cases: [unknown, string][] = [
    [{ url: '' }, 'url'],
    [{ url: 'postgres://db/x' }, 'url'],
    [{ url: 'file://otherhost/x.db' }, 'url'],
    [{ url: 'libsql://db.example', driver: 'libsql' }, 'driver'],
    [{ driver: 'sqlite3' }, 'driver'],
    [{ busyTimeoutMs: -1 }, 'busyTimeoutMs'],
    [{ leaseMs: 10 }, 'leaseMs'],
    [{ urll: 'file:x.db' }, 'urll'],
    ['file:x.db', 'options'],
  ];
  for (const [options, field] of cases) {
    let caught: any;
    try { sqlite(options as never); } catch (error) { caught = error; }
    assert.is(caught?.code, 'ORYX_E_SQLITE_OPTIONS', JSON.stringify(options));
    assert.match(caught.message, field);
    assert.ok(caught.hint, 'a hint says how to fix it');
  }
  assert.not.throws(() => sqlite());
  assert.not.throws(() => sqlite({ url: 'libsql://db.example', authToken: 't' }));
});

test('an unreachable libsql server fails at start with ORYX_E_SQLITE_OPEN and no secret in the message', async () => {
  const error = await rejection(() => testKernel({ plugins: [scripted([]), sqlite({ url: 'http://127.0.0.1:9/db?authToken=s3cret', authToken: 's3cret' })] }));
  assert.is(error.code, 'ORYX_E_SQLITE_OPEN');
  assert.not.match(error.message, 's3cret');
});

test.run();
