// `oryx db status | migrate | copy` through the built CLI, on both engines (the store plugins
// with audit and the scheduler), and `oryx sessions` on PostgreSQL.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import Libsql from 'libsql';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { echoTool, runOryx, scripted, tempProject, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import audit from '@oryxos/plugin-audit';
import sqlite from '@oryxos/plugin-sqlite';
import scheduler from '@oryxos/plugin-scheduler';
import postgres, { openPostgres } from '@oryxos/plugin-postgres';
import { freshDatabase } from '../plugins/postgres/test/pg.ts';

const CONFIG = (store: string) => `
import { defineConfig } from '@oryxos/kernel';
import sqlite from '@oryxos/plugin-sqlite';
import postgres, { env } from '@oryxos/plugin-postgres';
import audit from '@oryxos/plugin-audit';
import scheduler from '@oryxos/plugin-scheduler';
import approvals from '@oryxos/plugin-approvals';
export default defineConfig({ plugins: [${store}, audit(), scheduler(), approvals()] });
`;

async function project(store: string): Promise<string> {
  const dir = await tempProject('oryx-db-cli-');
  // A project folder of its own: the checkout above it has a config too (a plain folder's would be refused).
  await writeFile(path.join(dir, 'package.json'), '{ "private": true }\n');
  await writeFile(path.join(dir, 'oryx.config.ts'), CONFIG(store));
  return dir;
}

const json = (r: { stdout: string }) => JSON.parse(r.stdout);
const states = (status: { owners: { owner: string; database: number; code?: number; state: string }[] }) =>
  Object.fromEntries(status.owners.map((o) => [o.owner, `${o.database}/${o.code ?? '-'} ${o.state}`]));

test('oryx db status and migrate on SQLite and on PostgreSQL; a database newer than the code is reported and refused', async () => {
  const database = await freshDatabase();
  try {
    const engines = [
      { store: "sqlite({ url: 'file:data/oryx.db' })", own: 'sqlite:0/8', env: {}, newer: 'ORYX_E_SQLITE_SCHEMA_NEWER' },
      { store: "postgres({ url: env('ORYX_DATABASE_URL') })", own: 'postgres:0/4', env: { ORYX_DATABASE_URL: database.url }, newer: 'ORYX_E_PG_SCHEMA_NEWER' },
    ];
    for (const e of engines) {
      const dir = await project(e.store);
      const [owner, versions] = e.own.split(':') as [string, string];
      let status = await runOryx(['db', 'status', '--json'], { cwd: dir, env: e.env });
      assert.is(status.code, 0, status.stderr);
      assert.equal(states(json(status)), { [owner]: `${versions} pending`, audit: '0/6 pending', scheduler: '0/1 pending', runs: '0/2 pending', approvals: '0/2 pending' }, e.store);
      assert.is(json(status).pending, owner === 'sqlite' ? 19 : 15);
      if (owner === 'sqlite') assert.not.ok(existsSync(path.join(dir, 'data', 'oryx.db')), 'status created nothing');

      const migrated = await runOryx(['db', 'migrate'], { cwd: dir, env: e.env });
      assert.is(migrated.code, 0, migrated.stderr);
      assert.match(migrated.stdout, /scheduler\s+1\s+1/);
      status = await runOryx(['db', 'status', '--json'], { cwd: dir, env: e.env });
      assert.equal(Object.values(states(json(status))).map((s) => s.split(' ').slice(1).join(' ')), ['up to date', 'up to date', 'up to date', 'up to date', 'up to date']);
      const again = await runOryx(['db', 'migrate', '--json'], { cwd: dir, env: e.env });
      assert.ok(json(again).owners.every((o: { applied: number[] }) => o.applied.length === 0), 'nothing left to apply');

      // a newer audit schema, as a newer OryxOS on another host would leave it
      const newer = "INSERT INTO schema_migrations (owner, version, name, applied_at) VALUES ('audit', 9, 'future', 'now')";
      if (owner === 'sqlite') {
        const raw = new Libsql(path.join(dir, 'data', 'oryx.db'));
        raw.exec(newer);
        raw.close();
      } else {
        const db = await openPostgres({ url: database.url, poolSize: 1, statementTimeoutMs: 0, connectTimeoutMs: 5000, applicationName: 't' });
        await db.execute(newer);
        await db.close();
      }
      status = await runOryx(['db', 'status'], { cwd: dir, env: e.env });
      assert.is(status.code, 1, 'status fails on a database newer than the code');
      assert.match(status.stdout, /audit\s+9\s+6\s+NEWER than this code: refused at start/);
      const refused = await runOryx(['sessions', '--json'], { cwd: dir, env: e.env });
      assert.is(refused.code, 1);
      assert.is(json(refused).error.code, e.newer);
    }
  } finally {
    await database.drop();
  }
});

test('oryx db copy: a SQLite project\'s sessions, audit and scheduler rows to PostgreSQL and back, counts and checksums equal', async () => {
  const database = await freshDatabase();
  try {
    // The source: a real project with sessions (text with NUL and lone surrogates), audit rows and a scheduled run.
    const source = await project("sqlite()");
    const llm = scripted([{ toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'x\0y' } }] }, { text: 'done \uD800' }, { text: 'second' }, { text: 'nightly report' }]);
    let k = await testKernel({
      plugins: [llm, toolsPlugin(echoTool()), sqlite(), audit(), scheduler({ tasks: [{ name: 'nightly', agent: 'assistant', message: 'report', cron: '0 3 * * *' }] })],
      dir: source, agents: { assistant: { tools: ['*'] } },
    });
    const first = await k.service.process({ agent: 'assistant', message: 'echo a\0b' });
    await k.service.process({ agent: 'assistant', message: 'and again' });
    await k.kernel.service('scheduler').run('nightly');
    await k.close({ keep: true });

    const target = await project("postgres({ url: env('ORYX_DATABASE_URL') })");
    const env = { ORYX_DATABASE_URL: database.url };
    assert.is((await runOryx(['db', 'migrate'], { cwd: target, env })).code, 0);
    const copied = await runOryx(['db', 'copy', '--from', 'file:../' + path.basename(source) + '/.oryxos/oryx.db', '--to', database.url, '--json'], { cwd: target, env });
    assert.is(copied.code, 0, copied.stderr + copied.stdout);
    const report = json(copied) as { tables: { table: string; rows: number; checksum: string }[]; to: string };
    assert.not.match(copied.stdout, ':oryx@', 'the password is not shown');
    const raw = new Libsql(path.join(source, '.oryxos', 'oryx.db'));
    const counts = Object.fromEntries(['sessions', 'messages', 'llm_calls', 'tool_invocations', 'scheduled_tasks', 'task_executions', 'runs']
      .map((t) => [t, (raw.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n]));
    raw.close();
    assert.equal(counts, { sessions: 3, messages: 8, llm_calls: 4, tool_invocations: 1, scheduled_tasks: 1, task_executions: 1, runs: 3 });
    assert.equal(Object.fromEntries(report.tables.map((t) => [t.table, t.rows])), counts, 'every table with rows, each count as in the source');

    const twice = await runOryx(['db', 'copy', '--from', `file:${source}/.oryxos/oryx.db`, '--to', database.url, '--json'], { cwd: target, env });
    assert.is(twice.code, 1);
    assert.is(json(twice).error.code, 'ORYX_E_DB_COPY');
    assert.match(json(twice).error.message, 'already holds');

    // And back into a fresh SQLite file: the same rows, the same checksums.
    const back = await project("sqlite({ url: 'file:back.db' })");
    assert.is((await runOryx(['db', 'migrate'], { cwd: back })).code, 0);
    const returned = await runOryx(['db', 'copy', '--from', database.url, '--to', 'file:back.db', '--json'], { cwd: back });
    assert.is(returned.code, 0, returned.stderr + returned.stdout);
    assert.equal((json(returned).tables as { table: string; rows: number; checksum: string }[]), report.tables, 'every table: the same rows and checksum after the round trip');

    // On PostgreSQL the sessions read back exactly, and the project goes on (ids continue after the copied ones).
    const shown = json(await runOryx(['sessions', 'show', first.sessionId, '--json'], { cwd: target, env }));
    assert.equal(shown.messages.map((m: { message: { content: string } }) => m.message.content), ['echo a\0b', '', 'echo: x\0y', 'done \uD800']);
    k = await testKernel({ plugins: [scripted([{ text: 'on postgres' }]), postgres({ url: database.url }), audit()], dir: target });
    try {
      assert.is((await k.service.process({ agent: 'assistant', session: first.sessionId, message: 'still there?' })).answer, 'on postgres');
      assert.is((await k.kernel.service('database').query<{ n: number }>('SELECT COUNT(*) AS n FROM llm_calls'))[0]!.n, 5);
    } finally {
      await k.close({ keep: true });
    }
  } finally {
    await database.drop();
  }
});

test.run();
