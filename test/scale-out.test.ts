// Scale-out on PostgreSQL, end to end with real parts: three `oryx web` processes (the built CLI)
// behind Debian's nginx (round-robin) on one database, a loopback model that takes 100 ms per
// call; then one of them SIGKILLed mid-load. And two `oryx schedule start` processes sharing
// the scheduler's slots. Needs PostgreSQL and nginx (.ci/run installs and starts them); fails,
// never skips, when they are missing.
import http from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx } from '@oryxos/kernel/testing';
import { openPostgres, type OpenPostgres } from '@oryxos/plugin-postgres';
import { freshDatabase } from '../plugins/postgres/test/pg.ts';
import { call, clusterProject, startModel, startNginx, startOryx, startWeb, stop, type Proc } from './fixtures/cluster.ts';

const SESSIONS = 100;
const MESSAGES = 3;

async function openDb(url: string): Promise<OpenPostgres> {
  return openPostgres({ url, poolSize: 2, statementTimeoutMs: 30_000, connectTimeoutMs: 5000, applicationName: 'oryx-test' });
}

/** Each session's stored messages: contiguous seq, user messages in the order sent, each answer right after its question. */
async function checkSessions(db: OpenPostgres, ids: string[], sent: Map<string, string[]>, answered: Set<string>): Promise<void> {
  const rows = await db.query<{ session_id: string; seq: number; role: string; content: string }>(
    'SELECT session_id, seq, role, content FROM messages ORDER BY session_id, seq');
  const bySession = new Map<string, typeof rows>();
  for (const r of rows) bySession.set(r.session_id, [...(bySession.get(r.session_id) ?? []), r]);
  for (const id of ids) {
    const stored = bySession.get(id) ?? [];
    assert.equal(stored.map((m) => m.seq), stored.map((_, i) => i + 1), `session ${id}: seq is contiguous`);
    const users = stored.filter((m) => m.role === 'user').map((m) => m.content);
    const asked = sent.get(id)!;
    // a run that died with its process may have committed its question (and nothing after it)
    assert.equal(users.filter((u) => asked.includes(u)), users, `session ${id}: only questions that were sent`);
    assert.equal(users, asked.filter((q) => users.includes(q)), `session ${id}: questions in the order they were sent`);
    for (const q of asked) if (answered.has(q)) assert.ok(users.includes(q), `answered question "${q}" is stored`);
    stored.forEach((m, i) => {
      if (m.role === 'assistant') assert.is(m.content, `answer to: ${stored[i - 1]!.content}`, `session ${id}: each answer follows its question`);
    });
    const [info] = await db.query<{ message_count: number }>('SELECT message_count FROM sessions WHERE id = ?', [id]);
    assert.is(info?.message_count, stored.length, `session ${id}: message_count agrees with the rows`);
  }
}

test('three oryx web behind nginx on one database: 100 sessions × 3 messages, then one process SIGKILLed mid-load', async () => {
  const database = await freshDatabase('oryx_scale');
  const model = await startModel(100);
  const procs: Proc[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: SESSIONS });
  let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;
  const db = await openDb(database.url);
  try {
    const dir = await clusterProject();
    // All three start at once on an empty database: the migrations take turns under an advisory lock.
    procs.push(...await Promise.all(['w1', 'w2', 'w3'].map((name) => startWeb(name, dir, database.url, model.url))));
    nginx = await startNginx(procs.map((p) => p.url!.replace('http://', '')));
    const front = nginx.url;

    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const r = await call(agent, front, 'POST', '/api/sessions', { agent: 'assistant' });
      assert.is(r.status, 201, r.text);
      ids.push(JSON.parse(r.text).id);
    }
    const sent = new Map(ids.map((id) => [id, [] as string[]]));
    const answered = new Set<string>();
    const errors: string[] = [];
    const ask = async (id: string, question: string) => {
      sent.get(id)!.push(question);
      const r = await call(agent, front, 'POST', `/api/sessions/${id}/messages`, { message: question });
      if (r.status === 200 && JSON.parse(r.text).answer === `answer to: ${question}`) answered.add(question);
      else errors.push(`${r.status} ${r.text.slice(0, 200)}`);
      return r.status;
    };

    // Every session at once, each session's messages one after the other.
    const started = performance.now();
    await Promise.all(ids.map(async (id, s) => { for (let m = 0; m < MESSAGES; m++) await ask(id, `s${s} m${m}`); }));
    const seconds = (performance.now() - started) / 1000;
    assert.equal(errors, [], 'no errors');
    assert.is(answered.size, SESSIONS * MESSAGES);
    await checkSessions(db, ids, sent, answered);
    const byProcess = await db.query<{ model: string; n: number }>('SELECT model, COUNT(*) AS n FROM llm_calls GROUP BY model ORDER BY model');
    assert.equal(byProcess.map((r) => r.model), ['w1', 'w2', 'w3'], 'audit rows from all three processes');
    assert.is(byProcess.reduce((n, r) => n + r.n, 0), SESSIONS * MESSAGES, 'one llm_calls row per message');
    assert.ok(byProcess.every((r) => r.n >= SESSIONS * MESSAGES / 10), `round-robin spread the load: ${JSON.stringify(byProcess)}`);
    console.log(`  ${SESSIONS * MESSAGES} messages through nginx and 3 processes in ${seconds.toFixed(1)} s (${(SESSIONS * MESSAGES / seconds).toFixed(0)} msg/s)`);

    // Mid-load, w2 is killed while it has runs waiting on the model.
    const victim = procs[1]!;
    const victimPid = victim.child.pid!;
    errors.length = 0;
    const load = Promise.all(ids.map((id, s) => ask(id, `s${s} kill`)));
    for (let i = 0; i < 400 && (model.inFlight.get('w2') ?? 0) < 5; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok((model.inFlight.get('w2') ?? 0) >= 5, 'w2 had runs in flight when it was killed');
    await stop(victim, 'SIGKILL');
    const statuses = await load;
    assert.ok(statuses.every((s) => s === 200 || s === 502), `in-flight runs of the killed process failed cleanly (502 from nginx), the others went through: ${JSON.stringify(errors.slice(0, 3))}`);
    const failed = statuses.filter((s) => s === 502).length;
    assert.ok(failed >= 1 && failed < SESSIONS, `${failed} request(s) failed with the process`);

    // Every session goes on through the other two; leases the dead process held are taken over at once.
    const held = await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM session_leases WHERE pid = ?', [victimPid]);
    assert.ok(held[0]!.n >= 1, 'the killed process left leases behind');
    errors.length = 0;
    await Promise.all(ids.map((id, s) => ask(id, `s${s} after`)));
    assert.equal(errors, [], 'every session is usable through the other two');
    await checkSessions(db, ids, sent, answered);
    assert.equal(await db.query('SELECT * FROM session_leases WHERE pid = ?', [victimPid]), [], 'no lease of the dead process is left');
    const survivors = procs.filter((p) => p !== victim).map((p) => p.out).join('\n');
    assert.match(survivors, `from process ${victimPid}, which is gone`, 'the survivors took its leases over');
  } finally {
    agent.destroy();
    await nginx?.close();
    await Promise.all(procs.map((p) => stop(p)));
    await db.close();
    await model.close();
    await database.drop();
  }
});

test('two oryx schedule start processes on one database: every slot runs exactly once; one killed, the other carries on', async () => {
  const database = await freshDatabase('oryx_sched');
  const model = await startModel(20);
  const dir = await clusterProject('oryx-sched-');
  const migrated = await runOryx(['db', 'migrate', '--json'], { cwd: dir, env: { ORYX_DATABASE_URL: database.url, OPENAI_API_KEY: 'test' } });
  assert.is(migrated.code, 0, migrated.stderr);
  const env = (name: string) => ({ ORYX_DATABASE_URL: database.url, OPENAI_BASE_URL: model.url, ORYX_TEST_MODEL: name, ORYX_TEST_TASK_MS: '1000' });
  const procs: Proc[] = [];
  const db = await openDb(database.url);
  try {
    procs.push(...await Promise.all(['s1', 's2'].map((name) => startOryx(name, dir, ['schedule', 'start'], env(name), /scheduler started|started/))));
    const slots = async () => db.query<{ slot: string; status: string; owner: string }>("SELECT slot, status, owner FROM task_executions WHERE task = 'tick' ORDER BY slot");
    const waitFor = async (n: number) => {
      for (let i = 0; i < 600 && (await slots()).filter((r) => r.status === 'ok').length < n; i++) await new Promise((r) => setTimeout(r, 100));
    };
    await waitFor(12);
    const before = await slots();
    const owners = new Set(before.map((r) => r.owner.split(':')[1]));
    await stop(procs[0]!, 'SIGKILL');
    const killedAt = new Date().toISOString();
    await waitFor(before.filter((r) => r.status === 'ok').length + 10);
    const all = await slots();
    assert.ok(all.filter((r) => r.status === 'ok').length >= 20, `at least 20 slots ran (${all.length})`);
    assert.is(new Set(all.map((r) => r.slot)).size, all.length, 'each slot has one row');
    const calls = model.requests.filter((r) => r.ask === 'tick').length;
    const ran = all.filter((r) => r.status === 'ok' || (r.status === 'error' && r.slot < killedAt)).length;
    assert.ok(calls <= ran + 1 && calls >= all.filter((r) => r.status === 'ok').length, `each slot ran once: ${calls} model calls for ${ran} runs`);
    const after = all.filter((r) => r.slot > killedAt && r.status === 'ok');
    assert.ok(after.length >= 8, 'the surviving process carried on alone');
    assert.ok(after.every((r) => r.owner.split(':')[1] === String(procs[1]!.child.pid)), 'every slot after the kill ran in the survivor');
    assert.ok(owners.size >= 1);
  } finally {
    await Promise.all(procs.map((p) => stop(p)));
    await db.close();
    await model.close();
    await database.drop();
  }
});

test.run();
