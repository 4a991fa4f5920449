import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Libsql from 'libsql';
import type { Migration } from '@oryxos/contracts';
import type { Plugin } from '@oryxos/kernel';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import type { SessionStore as ContractStore } from '@oryxos/contracts';
import { RUN_MIGRATIONS, RUNS_OWNER } from '@oryxos/sql-store';
import sqlite, { MIGRATIONS, SCHEMA_VERSION, migrate, openDatabase } from '../src/index.ts';
import { rejection, tempDir } from './helpers.ts';

/** The store's own tables: the audit, scheduler and notify plugins create theirs only when enabled. */
const TABLES = ['call_marks', 'messages', 'messages_quarantine', 'runs', 'schema_migrations', 'session_leases', 'session_tags', 'sessions'];

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
    const versions = await k.kernel.service('database').query<{ version: number }>("SELECT version FROM schema_migrations WHERE owner = 'sqlite' ORDER BY version");
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
    assert.equal((await db.query<{ version: number }>("SELECT version FROM schema_migrations WHERE owner = 'sqlite' ORDER BY version")).map((r) => r.version), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.is((await k.kernel.service('sessions').get('old'))?.title, 'kept');
    await k.close({ keep: true });
    const again = await openDatabase({ kind: 'file', path: file }, { driver: 'client', busyTimeoutMs: 1000 });
    assert.equal(await migrate(again), []);
    await again.close();
  } finally {
    await cleanup();
  }
});

const NOTES: Migration[] = [
  { version: 1, name: 'notes', statements: ['CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL)'] },
  { version: 2, name: 'notes-tags', statements: { sqlite: ['ALTER TABLE notes ADD COLUMN tags TEXT'], postgres: ['ALTER TABLE notes ADD COLUMN tags JSONB'] } },
];

/** A plugin that owns a table and registers its migrations through the database service. */
function notes(migrations: readonly Migration[] = NOTES): Plugin {
  return {
    name: 'notes', version: '1.0.0', kernel: '^1',
    setup(k) { k.hooks.init.tapPromise(async () => { await k.service('database').migrate('notes', migrations); }); },
  };
}

test('each plugin migrates its own tables, recorded under its name beside the store\'s own versions', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const k = await testKernel({ plugins: [scripted([]), sqlite(), notes(NOTES.slice(0, 1))], dir });
    const db = k.kernel.service('database');
    assert.is(db.dialect, 'sqlite');
    await db.execute("INSERT INTO notes (id, body) VALUES ('n1', 'kept')");
    await k.close({ keep: true });

    const k2 = await testKernel({ plugins: [scripted([]), sqlite(), notes()], dir });
    const db2 = k2.kernel.service('database');
    const rows = await db2.query<{ owner: string; version: number }>('SELECT owner, version FROM schema_migrations ORDER BY owner, version');
    assert.equal(rows.filter((r) => r.owner === 'notes').map((r) => r.version), [1, 2], 'the sqlite dialect\'s statements of version 2 ran');
    assert.equal(rows.filter((r) => r.owner === 'sqlite').map((r) => r.version), MIGRATIONS.map((m) => m.version));
    assert.equal(await db2.query('SELECT id, body, tags FROM notes'), [{ id: 'n1', body: 'kept', tags: null }]);
    assert.equal(await db2.migrate('notes', NOTES), [], 'nothing left to do');
    await k2.close({ keep: true });

    // code older than the database for that owner: refused, nothing written
    const error = await rejection(() => testKernel({ plugins: [scripted([]), sqlite(), notes(NOTES.slice(0, 1))], dir }));
    assert.is(error.code, 'ORYX_E_SQLITE_SCHEMA_NEWER');
    assert.match(error.message, 'notes schema version 2');
  } finally {
    await cleanup();
  }
});

test('a schema_migrations table from before owners is upgraded in place: its versions become the store\'s', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const file = path.join(dir, '.oryxos', 'oryx.db');
    await mkdir(path.dirname(file), { recursive: true });
    const raw = new Libsql(file);
    raw.exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);
      INSERT INTO schema_migrations VALUES (1, 'sessions', '2020-01-01T00:00:00.000Z')`);
    for (const sql of MIGRATIONS[0]!.statements as string[]) raw.exec(sql);
    raw.exec("INSERT INTO sessions (id, agent, title, created_at, updated_at) VALUES ('old', 'assistant', 'kept', '2020-01-01', '2020-01-01')");
    raw.close();

    const k = await testKernel({ plugins: [scripted([]), sqlite(), notes()], dir });
    const db = k.kernel.service('database');
    const rows = await db.query<{ owner: string; version: number; applied_at: string }>('SELECT owner, version, applied_at FROM schema_migrations ORDER BY owner, version');
    assert.equal(rows.find((r) => r.owner === 'notes'), { owner: 'notes', version: 1, applied_at: rows.find((r) => r.owner === 'notes')!.applied_at });
    assert.equal(rows.filter((r) => r.owner === 'sqlite')[0], { owner: 'sqlite', version: 1, applied_at: '2020-01-01T00:00:00.000Z' }, 'the old row is kept as the store\'s');
    assert.equal(rows.filter((r) => r.owner === 'sqlite').map((r) => r.version), MIGRATIONS.map((m) => m.version));
    assert.is((await k.kernel.service('sessions').get('old'))?.title, 'kept');
    await k.close();
  } finally {
    await cleanup();
  }
});

test('version 7 (messages keyed by (session_id, seq), turns, call marks, tags; runs from their start): a database of version 6 with rows in every table keeps every row, byte for byte, readable', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const file = path.join(dir, '.oryxos', 'oryx.db');
    await mkdir(path.dirname(file), { recursive: true });
    // Made by the migrations as they shipped up to today: the store's 1 to 6 and the runs' 1 (the
    // approvals table is the approvals plugin's, migrated and tested there).
    const old = await openDatabase({ kind: 'file', path: file }, { driver: 'libsql', busyTimeoutMs: 1000 });
    assert.equal(await migrate(old, MIGRATIONS.slice(0, 6)), [1, 2, 3, 4, 5, 6]);
    assert.equal(await migrate(old, RUN_MIGRATIONS.slice(0, 1), RUNS_OWNER), [1]);
    await old.close();
    const raw = new Libsql(file);
    const T = '2020-01-01T00:00:00.000Z';
    raw.prepare("INSERT INTO sessions (id, agent, title, created_at, updated_at, message_count, parent_session_id) VALUES (?, 'a', ?, ?, ?, ?, ?)").run('s1', 'first', T, T, 5, null);
    raw.prepare("INSERT INTO sessions (id, agent, title, created_at, updated_at, message_count, parent_session_id) VALUES (?, 'b', ?, ?, ?, ?, ?)").run('s2', Buffer.from('oryx:s:"t\\u0000x"'), T, T, 301, 's1');
    const insert = raw.prepare('INSERT INTO messages (session_id, seq, role, content, tool_calls, tool_call_id, name, is_error, extra, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    insert.run('s1', 1, 'user', 'hello', null, null, null, null, null, T);
    insert.run('s1', 2, 'assistant', '', '[{"id":"c1","name":"echo","args":{"text":"x"}}]', null, null, null, '{"parts":[{"type":"reasoning","text":"why"}]}', T);
    insert.run('s1', 3, 'tool', Buffer.from('oryx:s:"a\\u0000b"'), null, 'c1', 'echo', 0, null, T);
    insert.run('s1', 4, 'user', 'again', null, null, null, null, null, T);
    insert.run('s1', 5, 'assistant', '', '[{"id":"c1","name":"echo"', null, null, null, null, T); // a damaged row: kept as it is
    for (let i = 1; i <= 301; i++) insert.run('s2', i, i % 3 === 1 ? 'user' : 'assistant', `m${i} ${'y'.repeat(i % 200)}`, null, null, null, null, null, T);
    raw.prepare("INSERT INTO messages_quarantine (message_id, session_id, seq, role, content, reason, quarantined_at) VALUES (7, 's1', 9, 'tool', 'bad', 'damaged', ?)").run(T);
    raw.prepare("INSERT INTO session_leases (session_id, owner, host, pid, acquired_at, expires_at, cancel_requested_by) VALUES ('s2', 'o', 'h', 1, 0, 0, 'me')").run();
    for (const [id, at] of [['run-z', T], ['run-a', T], ['run-m', '2020-01-02T00:00:00.000Z']]) {
      raw.prepare(`INSERT INTO runs (id, session_id, agent, started_at, finished_at, stop_reason, notice, iterations, tool_calls, input_tokens, output_tokens, retries, duration_ms, error_code)
        VALUES (?, 's1', 'a', ?, ?, 'final', 'n', 1, 2, 3, 4, 0, 5, NULL)`).run(id, at, at);
    }
    const dump = (db: Libsql.Database, table: string, order: string) => db.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).all();
    const before = {
      messages: dump(raw, 'messages', 'session_id, seq').map((m) => { const { id: _id, ...rest } = m as Record<string, unknown>; return rest; }),
      quarantine: dump(raw, 'messages_quarantine', 'id'), leases: dump(raw, 'session_leases', 'session_id'),
      runs: dump(raw, 'runs', 'rowid'), sessions: dump(raw, 'sessions', 'id'),
    };
    raw.close();

    const k = await testKernel({ plugins: [scripted([]), sqlite()], dir });
    try {
      const db = k.kernel.service('database');
      assert.equal((await db.query<{ v: number }>("SELECT MAX(version) AS v FROM schema_migrations WHERE owner = 'sqlite'"))[0]!.v, 8);
      assert.equal((await db.query<{ v: number }>("SELECT MAX(version) AS v FROM schema_migrations WHERE owner = 'runs'"))[0]!.v, 2);
      // The contracts' store (the kernel's own SessionInfo has no `turns` yet).
      const store = k.kernel.service('sessions') as unknown as ContractStore;
      const s1 = await store.get('s1');
      const s2 = await store.get('s2');
      assert.equal([s1?.turns, s1?.messageCount, s2?.turns, s2?.messageCount, s2?.title, s2?.parentSessionId], [2, 5, 101, 301, 't\0x', 's1'], 'turns counted from the stored user messages');
      assert.equal((await store.messages('s2')).map((m) => m.message.content), before.messages.filter((m) => m.session_id === 's2').map((m) => m.content));
      assert.is((await rejection(() => store.messages('s1'))).code, 'ORYX_E_SQLITE_CORRUPT_ROW', 'the damaged row is still there, damaged as it was');
      const scanned = await store.scan!('s1');
      assert.equal(scanned.map((m) => ('damaged' in m ? 'damaged' : m.message.content)), ['hello', '', 'a\0b', 'again', 'damaged']);
      assert.equal((await store.history('s2', 2)).map((m) => m.seq), [298, 299, 300, 301], 'history finds the user turns through the rebuilt index');
      const [table] = await db.query<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'messages'");
      assert.match(table!.sql, 'WITHOUT ROWID');
      assert.equal(await db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'messages'"), [{ name: 'messages_user_turns' }], 'one b-tree and the user-turns index: no unique index any more');
      assert.equal((await k.kernel.service('runRecords').list()).map((r) => r.runId), ['run-m', 'run-a', 'run-z'], 'the runs, their write order kept for the same start');
    } finally {
      await k.close({ keep: true });
    }
    const after = new Libsql(file);
    try {
      assert.equal(dump(after, 'messages', 'session_id, seq'), before.messages, 'every message row, every column, exactly');
      assert.equal(dump(after, 'messages_quarantine', 'id'), before.quarantine);
      assert.equal(dump(after, 'session_leases', 'session_id'), before.leases);
      assert.equal(dump(after, 'runs', 'rowid').map((r) => { const { cache_read_tokens: _a, cache_write_tokens: _b, cost_usd: _c, continuation: _d, host: _e, pid: _f, ...v1 } = r as Record<string, unknown>; return v1; }), before.runs);
      assert.equal(dump(after, 'sessions', 'id').map((r) => { const { turns: _t, external_door: _d, external_id: _i, tags: _g, counted_seq: _c, ...v6 } = r as Record<string, unknown>; return v6; }), before.sessions);
      assert.equal(after.prepare('PRAGMA integrity_check').all(), [{ integrity_check: 'ok' }]);
      assert.equal(after.prepare('PRAGMA foreign_key_check').all(), []);
    } finally {
      after.close();
    }
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
