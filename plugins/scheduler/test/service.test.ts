import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { testKernel } from '@oryxos/kernel/testing';
import scheduler, { parseEvery, slotsBetween, type ExecutionRow } from '../src/index.ts';
import { executions, model, rejection, schedulerKernel, tempDir, waitFor } from './helpers.ts';
import type { TaskScheduler } from '../src/service.ts';

const base = { agent: 'assistant', message: 'm' };

test('bad input is refused when the task is added, each with its own code and a message naming what is wrong', async () => {
  const { dir, cleanup } = await tempDir();
  const t = await schedulerKernel(dir, { tasks: [{ name: 'from-config', ...base, every: '1h' }] });
  try {
    const tasks = (t.kernel.service('scheduler') as TaskScheduler);
    await tasks.add({ name: 'taken', ...base, every: '1h' });
    const cases: [Record<string, unknown>, string, string | RegExp][] = [
      [{ name: 'c', ...base, cron: '61 * * * *' }, 'ORYX_E_SCHEDULER_BAD_CRON', 'cron "61 * * * *" is not valid: Invalid value for minute: 61'],
      [{ name: 'c', ...base, cron: '* * *' }, 'ORYX_E_SCHEDULER_BAD_CRON', 'cron "* * *"'],
      [{ name: 'c', ...base, cron: '0 0 31 2 *' }, 'ORYX_E_SCHEDULER_BAD_CRON', 'never fires'],
      [{ name: 'c', ...base, every: '500ms' }, 'ORYX_E_SCHEDULER_BAD_EVERY', 'shortest interval is 1000 ms'],
      [{ name: 'c', ...base, every: 'soon' }, 'ORYX_E_SCHEDULER_BAD_EVERY', 'not a duration'],
      [{ name: 'c', ...base, at: '2026-01-01T10:00' }, 'ORYX_E_SCHEDULER_BAD_AT', 'has no time zone'],
      [{ name: 'c', ...base, at: '2001-01-01T00:00:00Z' }, 'ORYX_E_SCHEDULER_AT_PAST', 'has passed'],
      [{ name: 'c', ...base, cron: '0 8 * * *', timezone: 'Mars/Olympus' }, 'ORYX_E_SCHEDULER_BAD_TIMEZONE', 'Mars/Olympus'],
      [{ name: 'c', ...base, every: '1h', timezone: 'UTC' }, 'ORYX_E_SCHEDULER_BAD_TIMEZONE', 'cron only'],
      [{ name: 'c', agent: 'ghost', message: 'm', every: '1h' }, 'ORYX_E_SCHEDULER_UNKNOWN_AGENT', 'agent "ghost" does not exist (agents: assistant, reporter)'],
      [{ name: 'c', ...base, every: '1h', notify: 'ops' }, 'ORYX_E_SCHEDULER_UNKNOWN_CHANNEL', 'the notify plugin is not enabled'],
      [{ name: 'taken', ...base, every: '1h' }, 'ORYX_E_SCHEDULER_DUPLICATE', 'task "taken" already exists'],
      [{ name: 'from-config', ...base, every: '1h' }, 'ORYX_E_SCHEDULER_DUPLICATE', 'declared in oryx.config.ts'],
      [{ name: 'c', ...base }, 'ORYX_E_SCHEDULER_BAD_TASK', 'give exactly one of cron, every or at'],
      [{ name: 'c', ...base, every: '1h', cron: '* * * * *' }, 'ORYX_E_SCHEDULER_BAD_TASK', 'exclusive'],
      [{ name: 'bad name!', ...base, every: '1h' }, 'ORYX_E_SCHEDULER_BAD_TASK', 'name "bad name!"'],
      [{ name: 'c', ...base, every: '1h', overlap: 'maybe' }, 'ORYX_E_SCHEDULER_BAD_TASK', 'overlap'],
      [{ name: 'c', ...base, every: '1h', colour: 'red' }, 'ORYX_E_SCHEDULER_BAD_TASK', 'known fields'],
      [{ name: 'c', ...base, message: ' ', every: '1h' }, 'ORYX_E_SCHEDULER_BAD_TASK', 'message'],
    ];
    for (const [input, code, text] of cases) {
      const e = await rejection(() => tasks.add(input));
      assert.is(e.code, code, JSON.stringify(input));
      assert.match(e.message, text);
      assert.ok(e.hint, 'a hint says how to fix it');
    }
    assert.equal((await tasks.list()).map((x) => x.name), ['from-config', 'taken'], 'nothing refused was stored');
    for (const [call, code] of [
      [() => tasks.remove('from-config'), 'ORYX_E_SCHEDULER_CONFIG_TASK'], [() => tasks.setEnabled('from-config', false), 'ORYX_E_SCHEDULER_CONFIG_TASK'],
      [() => tasks.remove('nope'), 'ORYX_E_SCHEDULER_NOT_FOUND'], [() => tasks.run('nope'), 'ORYX_E_SCHEDULER_NOT_FOUND'],
      [() => tasks.executions('nope'), 'ORYX_E_SCHEDULER_NOT_FOUND'],
    ] as const) assert.is((await rejection(call)).code, code);
  } finally {
    await t.close();
    await cleanup();
  }
});

test('config tasks are checked at the factory (schedule) and at start (agent, channel, at), stored as config, updated and removed with the config', async () => {
  assert.is((await rejection(() => scheduler({ tasks: [{ name: 'x', ...base, cron: 'nope' }] }))).code, 'ORYX_E_SCHEDULER_BAD_CRON');
  assert.match((await rejection(() => scheduler({ tasks: [{ name: 'x', ...base, cron: 'nope' }] }))).message, 'scheduler(): tasks[0] "x": cron "nope"');
  assert.is((await rejection(() => scheduler({ tasks: [{ name: 'x', ...base, every: '1h' }, { name: 'x', ...base, every: '2h' }] }))).code, 'ORYX_E_SCHEDULER_DUPLICATE');
  assert.is((await rejection(() => scheduler({ tasks: 'x' } as never))).code, 'ORYX_E_SCHEDULER_OPTIONS');
  assert.is((await rejection(() => scheduler({ graceMs: -1 }))).code, 'ORYX_E_SCHEDULER_OPTIONS');

  const { dir, cleanup } = await tempDir();
  try {
    const ghost = await schedulerKernel(dir, { tasks: [{ name: 'g', agent: 'ghost', message: 'm', every: '1h' }] });
    const e = await rejection(() => (ghost.kernel.service('scheduler') as TaskScheduler).start());
    assert.is(e.code, 'ORYX_E_SCHEDULER_UNKNOWN_AGENT');
    assert.match(e.message, 'task "g" in oryx.config.ts');
    await ghost.close({ keep: true });

    const one = await schedulerKernel(dir, { tasks: [{ name: 'a', ...base, every: '1h' }, { name: 'b', ...base, every: '1h' }] });
    await (one.kernel.service('scheduler') as TaskScheduler).start();
    const rows1 = await one.kernel.service('database').query<{ name: string; source: string; every_ms: number; active_since: string }>('SELECT name, source, every_ms, active_since FROM scheduled_tasks ORDER BY name');
    assert.equal(rows1.map((r) => [r.name, r.source, r.every_ms]), [['a', 'config', 3_600_000], ['b', 'config', 3_600_000]]);
    await one.kernel.service('database').execute("INSERT INTO task_executions (task, slot, status, fired_by) VALUES ('b', '2020-01-01T00:00:00.000Z', 'ok', 'manual')");
    await one.close({ keep: true });

    const two = await schedulerKernel(dir, { tasks: [{ name: 'a', ...base, every: '2h' }] });
    await (two.kernel.service('scheduler') as TaskScheduler).start();
    const rows2 = await two.kernel.service('database').query<{ name: string; every_ms: number; active_since: string }>('SELECT name, every_ms, active_since FROM scheduled_tasks ORDER BY name');
    assert.equal(rows2.map((r) => [r.name, r.every_ms]), [['a', 7_200_000]], 'a changed, b gone');
    assert.ok(rows2[0]!.active_since > rows1[0]!.active_since, 'a new schedule counts its slots from now');
    assert.is((await (two.kernel.service('scheduler') as TaskScheduler).executions('b')).length, 1, "b's executions are kept");
    await two.close();
  } finally {
    await cleanup();
  }
});

test('two schedulers on one database file: each slot is claimed by exactly one of them', async () => {
  const { dir, cleanup } = await tempDir();
  const tasks = [{ name: 'shared', ...base, every: '1s', overlap: 'queue' as const }];
  const a = await schedulerKernel(dir, { tasks });
  const b = await testKernel({ dir, plugins: [model(), (await import('@oryxos/plugin-sqlite')).default(), scheduler({ tasks, refreshMs: 500, leaseMs: 3000 })] });
  try {
    await Promise.all([(a.kernel.service('scheduler') as TaskScheduler).start(), (b.kernel.service('scheduler') as TaskScheduler).start()]);
    await waitFor(async () => (await executions(a, 'shared')).filter((e) => e.status === 'ok').length >= 6, 60_000, 'six runs');
    await Promise.all([(a.kernel.service('scheduler') as TaskScheduler).stop(), (b.kernel.service('scheduler') as TaskScheduler).stop()]);
    const all = await executions(a, 'shared');
    const shown = JSON.stringify(all.map((e) => [e.slot, e.status, e.fired_by, e.owner?.slice(-8), e.started_at, e.finished_at, e.error_code]));
    assert.is(new Set(all.map((e) => e.slot)).size, all.length);
    const times = all.map((e) => Date.parse(e.slot));
    for (let i = 1; i < times.length; i++) assert.is(times[i]! - times[i - 1]!, 1000, `one row for every second: ${shown}`);
    // Every slot ran, except queued ones the stop told not to start; none was missed or interrupted.
    for (const e of all) {
      if (e.status === 'skipped') assert.is(e.error_code, 'ORYX_E_SCHEDULER_SHUTDOWN', shown);
      else assert.is(e.status, 'ok', shown);
    }
    const sessions = await a.kernel.service('sessions').list({ limit: 100 });
    assert.is(sessions.items.length, all.filter((e) => e.session_id).length, 'as many runs as claimed slots');
  } finally {
    await a.close();
    await b.close();
    await cleanup();
  }
});

test("session 'task' continues one session across runs; run now is recorded like a scheduled run", async () => {
  const { dir, cleanup } = await tempDir();
  const t = await schedulerKernel(dir);
  try {
    const tasks = (t.kernel.service('scheduler') as TaskScheduler);
    await tasks.add({ name: 'diary', ...base, every: '1d', session: 'task' });
    const first: ExecutionRow = await tasks.run('diary');
    const second: ExecutionRow = await tasks.run('diary');
    assert.is(first.status, 'ok');
    assert.is(first.fired_by, 'manual');
    assert.is(second.session_id, first.session_id);
    const messages = await t.kernel.service('sessions').messages(first.session_id!);
    assert.is(messages.length, 4);
    assert.is((await tasks.get('diary')).sessionId, first.session_id);
    assert.equal((await executions(t, 'diary')).map((e) => e.id), [first.id, second.id]);
  } finally {
    await t.close();
    await cleanup();
  }
});

test('slots are the same everywhere: every counts from 1970-01-01T00:00Z; durations read as people write them', () => {
  assert.equal(slotsBetween({ kind: 'every', everyMs: 60_000 }, Date.parse('2026-01-01T10:00:30Z'), Date.parse('2026-01-01T10:03:00Z'), 10).slots.map((s) => new Date(s).toISOString()),
    ['2026-01-01T10:01:00.000Z', '2026-01-01T10:02:00.000Z', '2026-01-01T10:03:00.000Z']);
  assert.equal(slotsBetween({ kind: 'every', everyMs: 1000 }, 0, 10_000, 3), { slots: [8000, 9000, 10_000], omitted: 7 });
  const cron = slotsBetween({ kind: 'cron', cron: '0 8 * * *', timezone: 'Europe/Berlin' }, Date.parse('2026-03-28T00:00:00Z'), Date.parse('2026-03-30T23:00:00Z'), 10);
  assert.equal(cron.slots.map((s) => new Date(s).toISOString()), ['2026-03-28T07:00:00.000Z', '2026-03-29T06:00:00.000Z', '2026-03-30T06:00:00.000Z'], 'across a DST change');
  assert.equal(['90s', '1h30m', '2 days', '1500', 1000].map((v) => parseEvery(v)), [90_000, 5_400_000, 172_800_000, 1500, 1000]);
});

test.run();
