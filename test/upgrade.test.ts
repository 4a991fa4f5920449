// A database made by an older OryxOS (the sqlite plugin's schema versions 1 to 5, when it
// created the audit, scheduler and notify tables itself) upgrades in place when the plugins
// that now own those tables start: nothing is lost, and it ends with the schema a new database
// gets.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Libsql from 'libsql';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import approvals from '@oryxos/plugin-approvals';
import audit from '@oryxos/plugin-audit';
import notify from '@oryxos/plugin-notify';
import scheduler from '@oryxos/plugin-scheduler';
import sqlite from '@oryxos/plugin-sqlite';
import { SHIPPED_V5 } from '../plugins/sqlite/test/fixtures/schema-v5.ts';

const T = '2020-01-01T00:00:00.000Z';
const all = () => [scripted([]), sqlite(), audit(), scheduler(), notify(), approvals()];

/** A database as version `version` of the sqlite plugin left it, with a row in every table it had. */
async function oldDatabase(dir: string, version: number): Promise<string> {
  const file = path.join(dir, '.oryxos', 'oryx.db');
  await mkdir(path.dirname(file), { recursive: true });
  const db = new Libsql(file);
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  for (const m of SHIPPED_V5.slice(0, version)) {
    for (const sql of m.statements as string[]) db.exec(sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, T);
  }
  const has = (table: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
  db.prepare('INSERT INTO sessions (id, agent, title, created_at, updated_at, message_count) VALUES (?, ?, ?, ?, ?, 1)').run('s1', 'assistant', 'kept', T, T);
  db.prepare("INSERT INTO messages (session_id, seq, role, content, created_at) VALUES ('s1', 1, 'user', ?, ?)").run('hello', T);
  db.prepare("INSERT INTO session_leases (session_id, owner, host, pid, acquired_at, expires_at) VALUES ('s1', 'o', 'h', 1, 0, 0)").run();
  if (has('llm_calls')) {
    db.prepare("INSERT INTO llm_calls (session_id, run_id, agent, model, status, error_code, error, created_at) VALUES ('s1', 'r1', 'assistant', 'm', 'error', 'ORYX_E_LLM_SERVER', ?, ?)").run('boom\0tail', T);
    db.prepare("INSERT INTO tool_invocations (session_id, tool, input, output, status, created_at) VALUES ('s1', 'cat', '{}', ?, 'ok', ?)").run('x\0y', T);
  }
  if (has('scheduled_tasks')) {
    db.prepare(`INSERT INTO scheduled_tasks (id, name, agent, message, interval_ms, session_id, notify_channel, enabled, created_at, updated_at)
      VALUES ('t1', 'legacy', 'assistant', ?, 60000, 's1', 'ops', 1, ?, ?)`).run('check\0it', T, T);
    db.prepare(`INSERT INTO task_executions (task_id, scheduled_for, started_at, finished_at, status, session_id, answer, duration_ms)
      VALUES ('t1', ?, ?, ?, 'ok', 's1', 'fine', 5)`).run(T, T, T);
    db.prepare(`INSERT INTO notify_channels (name, host, port, secure, username, password_env, from_address, to_addresses, created_at, updated_at)
      VALUES ('ops', 'smtp.example.com', 587, 0, 'bot', 'SMTP_PASS', 'bot@example.com', '["me@example.com"]', ?, ?)`).run(T, T);
  }
  if (has('messages_quarantine')) db.prepare("INSERT INTO messages_quarantine (session_id, seq, role, content, reason, quarantined_at) VALUES ('s1', 9, 'tool', 'bad', 'damaged', ?)").run(T);
  if (has('sandbox_events')) db.prepare("INSERT INTO sandbox_events (decision, kind, target, created_at) VALUES ('deny', 'smtp', 'smtp h:25', ?)").run(T);
  db.close();
  return file;
}

/** Tables with their columns, and index names: what a schema is, for comparing two. */
function schemaOf(file: string): Record<string, string[]> {
  const db = new Libsql(file);
  try {
    const out: Record<string, string[]> = {};
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
    for (const { name } of tables) out[name] = (db.prepare(`SELECT name, type, "notnull" AS nn FROM pragma_table_info('${name}')`).all() as { name: string; type: string; nn: number }[]).map((c) => `${c.name} ${c.type}${c.nn ? ' NOT NULL' : ''}`);
    out['(indexes)'] = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    return out;
  } finally {
    db.close();
  }
}

test('version 5 with a row in every table: every row is kept, each plugin records its own migration, and the schema is a new database\'s', async () => {
  const fresh = await mkdtemp(path.join(tmpdir(), 'oryx-upgrade-'));
  const old = await mkdtemp(path.join(tmpdir(), 'oryx-upgrade-'));
  try {
    const k0 = await testKernel({ plugins: all(), dir: fresh });
    await k0.close({ keep: true });
    const file = await oldDatabase(old, 5);
    const k = await testKernel({ plugins: all(), dir: old });
    const db = k.kernel.service('database');
    const migrations = await db.query<{ owner: string; version: number; applied_at: string }>('SELECT owner, version, applied_at FROM schema_migrations ORDER BY owner, version');
    assert.equal(migrations.map((m) => `${m.owner} ${m.version}`), ['approvals 1', 'approvals 2', 'audit 1', 'audit 2', 'audit 3', 'audit 4', 'audit 5', 'audit 6', 'notify 1', 'runs 1', 'runs 2', 'scheduler 1', 'sqlite 1', 'sqlite 2', 'sqlite 3', 'sqlite 4', 'sqlite 5', 'sqlite 6', 'sqlite 7', 'sqlite 8']);
    assert.ok(migrations.filter((m) => m.owner === 'sqlite' && m.version <= 5).every((m) => m.applied_at === T), 'the old history is kept as it was');

    assert.is((await k.kernel.service('sessions').messages('s1'))[0]!.message.content, 'hello');
    assert.equal(await db.query('SELECT session_id, owner FROM session_leases'), [{ session_id: 's1', owner: 'o' }]);
    assert.equal(await db.query('SELECT error, error_code FROM llm_calls'), [{ error: 'boom\0tail', error_code: 'ORYX_E_LLM_SERVER' }]);
    assert.equal(await db.query('SELECT output FROM tool_invocations'), [{ output: 'x\0y' }]);
    assert.equal(await db.query('SELECT reason FROM messages_quarantine'), [{ reason: 'damaged' }]);
    assert.equal(await db.query('SELECT target FROM sandbox_events'), [{ target: 'smtp h:25' }]);
    const [task] = await k.kernel.service('scheduler').list();
    assert.equal([task!.name, task!.message, task!.every, task!.session, task!.sessionId, task!.notify, task!.source], ['legacy', 'check\0it', '1m', 'task', 's1', 'ops', 'runtime']);
    const [run] = await k.kernel.service('scheduler').executions('legacy');
    assert.equal([run!.slot, run!.status, run!.answer, run!.session_id], [T, 'ok', 'fine', 's1']);
    const [channel] = await k.kernel.service('notify').channels();
    assert.equal([channel!.name, channel!.password, channel!.to], ['ops', 'env SMTP_PASS', ['me@example.com']]);
    await k.close({ keep: true });

    assert.equal(schemaOf(file), schemaOf(path.join(fresh, '.oryxos', 'oryx.db')));
  } finally {
    await rm(fresh, { recursive: true, force: true });
    await rm(old, { recursive: true, force: true });
  }
});

test('from every older version (1 to 4): the same schema at the end, and text cut at a NUL before version 4 reads whole', async () => {
  const fresh = await mkdtemp(path.join(tmpdir(), 'oryx-upgrade-'));
  try {
    await (await testKernel({ plugins: all(), dir: fresh })).close({ keep: true });
    const expected = schemaOf(path.join(fresh, '.oryxos', 'oryx.db'));
    for (const version of [1, 2, 3, 4]) {
      const dir = await mkdtemp(path.join(tmpdir(), 'oryx-upgrade-'));
      try {
        const file = await oldDatabase(dir, version);
        const k = await testKernel({ plugins: all(), dir });
        const db = k.kernel.service('database');
        if (version >= 2) assert.equal(await db.query('SELECT output FROM tool_invocations'), [{ output: 'x\0y' }], `v${version}`);
        if (version >= 3) assert.is((await k.kernel.service('scheduler').list())[0]!.message, 'check\0it', `v${version}`);
        await k.close({ keep: true });
        assert.equal(schemaOf(file), expected, `from version ${version}`);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  } finally {
    await rm(fresh, { recursive: true, force: true });
  }
});

test('with sqlite alone, a new database gets only the store\'s tables and an old one keeps the others untouched', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-upgrade-'));
  const old = await mkdtemp(path.join(tmpdir(), 'oryx-upgrade-'));
  try {
    await (await testKernel({ plugins: [scripted([]), sqlite()], dir })).close({ keep: true });
    assert.equal(Object.keys(schemaOf(path.join(dir, '.oryxos', 'oryx.db'))).filter((t) => t !== '(indexes)'),
      ['call_marks', 'messages', 'messages_quarantine', 'runs', 'schema_migrations', 'session_leases', 'session_tags', 'sessions']);
    const file = await oldDatabase(old, 5);
    await (await testKernel({ plugins: [scripted([]), sqlite()], dir: old })).close({ keep: true });
    const raw = new Libsql(file);
    try {
      assert.equal(raw.prepare('SELECT name, interval_ms FROM scheduled_tasks').all(), [{ name: 'legacy', interval_ms: 60000 }]);
      assert.equal(raw.prepare('SELECT COUNT(*) AS n FROM llm_calls').all(), [{ n: 1 }]);
    } finally {
      raw.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
    await rm(old, { recursive: true, force: true });
  }
});

test.run();
