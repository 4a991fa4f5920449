import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { executions, schedulerKernel, sleep, tempDir, waitFor } from './helpers.ts';
import type { TaskScheduler } from '../src/service.ts';

test('every 1s: each slot runs once through the AgentService and is recorded with its session, run id and answer', async () => {
  const { dir, cleanup } = await tempDir();
  const t = await schedulerKernel(dir, { tasks: [{ name: 'tick', agent: 'assistant', message: 'report', every: '1s' }] });
  try {
    await (t.kernel.service('scheduler') as TaskScheduler).start();
    await waitFor(async () => (await executions(t, 'tick')).filter((e) => e.status === 'ok').length >= 3, 60_000, 'three ok runs');
    await (t.kernel.service('scheduler') as TaskScheduler).stop();
    // Read after the stop: a slot claimed while the test looked would have a session and no row here.
    const rows = await executions(t, 'tick');
    const ok = rows.filter((e) => e.status === 'ok');
    for (const e of ok) {
      assert.is(Date.parse(e.slot) % 1000, 0, 'a slot is a whole second');
      assert.ok(e.session_id && e.run_id, 'session and run recorded');
      assert.match(e.answer!, /^answer \d+$/);
      assert.is(e.fired_by, 'schedule');
      assert.ok(Date.parse(e.started_at!) >= Date.parse(e.slot), 'started at or after its slot');
    }
    assert.is(new Set(rows.map((e) => e.slot)).size, rows.length, 'one row per slot');
    const sessions = await t.kernel.service('sessions').list({ agent: 'assistant', limit: 100 });
    assert.is(sessions.items.length, rows.filter((e) => e.session_id).length, 'one session per run, no hidden run');
    const [msgs] = await Promise.all([t.kernel.service('sessions').messages(ok[0]!.session_id!)]);
    assert.equal(msgs.map((m) => m.message.role), ['user', 'assistant']);
    assert.is(msgs[0]!.message.content, 'report');
  } finally {
    await t.close();
    await cleanup();
  }
});

test('overlap skip: slots that come while the run goes are recorded skipped; overlap queue: they run after it, never at once', async () => {
  const { dir, cleanup } = await tempDir();
  const t = await schedulerKernel(dir, {
    tasks: [
      { name: 'skipper', agent: 'assistant', message: 'slow', every: '1s', overlap: 'skip' },
      { name: 'queuer', agent: 'reporter', message: 'slow', every: '1s', overlap: 'queue' },
    ],
  }, { step: () => ({ text: 'slow answer', delayMs: 1600 }) });
  try {
    const tasks = (t.kernel.service('scheduler') as TaskScheduler);
    await tasks.start();
    await waitFor(async () => (await executions(t, 'skipper')).filter((e) => e.status === 'skipped').length >= 2
      && (await executions(t, 'queuer')).filter((e) => e.status === 'ok').length >= 3, 60_000, 'skips and queued runs');
    await tasks.stop({ graceMs: 5000 });
    const skipper = await executions(t, 'skipper');
    for (const s of skipper.filter((e) => e.status === 'skipped')) {
      assert.is(s.error_code, 'ORYX_E_SCHEDULER_OVERLAP');
      const running = skipper.find((e) => e.status === 'ok' && e.slot < s.slot && Date.parse(e.finished_at!) >= Date.parse(s.slot));
      assert.ok(running, `skipped slot ${s.slot} came while an earlier run was going`);
    }
    const queuer = (await executions(t, 'queuer')).filter((e) => e.status === 'ok');
    assert.not.ok((await executions(t, 'queuer')).some((e) => e.error_code === 'ORYX_E_SCHEDULER_OVERLAP'), 'nothing skipped by overlap');
    for (let i = 1; i < queuer.length; i++) {
      assert.ok(Date.parse(queuer[i]!.started_at!) >= Date.parse(queuer[i - 1]!.finished_at!), 'queued runs one after the other, in slot order');
    }
  } finally {
    await t.close();
    await cleanup();
  }
});

test('timeoutMs aborts the run and records timeout; the session keeps what was committed', async () => {
  const { dir, cleanup } = await tempDir();
  const t = await schedulerKernel(dir, { tasks: [{ name: 'slow', agent: 'assistant', message: 'take your time', every: '1h', timeoutMs: 1000 }] }, {
    step: () => ({ text: 'too late', delayMs: 10_000 }),
  });
  try {
    const started = Date.now();
    const e = await (t.kernel.service('scheduler') as TaskScheduler).run('slow');
    assert.ok(Date.now() - started < 8000, 'aborted well before the model answered');
    assert.is(e.status, 'timeout');
    assert.is(e.error_code, 'ORYX_E_SCHEDULER_TIMEOUT');
    assert.is(e.fired_by, 'manual');
    const msgs = await t.kernel.service('sessions').messages(e.session_id!);
    assert.equal(msgs.map((m) => m.message.content), ['take your time']);
  } finally {
    await t.close();
    await cleanup();
  }
});

test('a failed slot is logged with its message and how to fix it, not only its code', async () => {
  const { dir, cleanup } = await tempDir();
  const t = await schedulerKernel(dir, {});
  try {
    const tasks = (t.kernel.service('scheduler') as TaskScheduler);
    await tasks.add({ name: 'ghost', agent: 'reporter', message: 'm', every: '1d' });
    // The agent breaks after the task was added (a typo in its frontmatter): the slot fails.
    const { writeFile } = await import('node:fs/promises');
    const path = await import('node:path');
    await writeFile(path.join(dir, '.oryxos', 'agents', 'reporter', 'AGENT.md'), '---\ndescription: r\ntols: [read_file]\n---\nYou report.\n');
    await sleep(600); // past the agent files' cache window
    const row = await tasks.run('ghost');
    assert.is(row.status, 'error');
    const line = t.warnings.find((w) => w.includes('task ghost slot '));
    assert.ok(line, t.warnings.join('\n'));
    assert.is(row.error_code, 'ORYX_E_AGENT_INVALID');
    assert.match(line!, /: error ORYX_E_AGENT_INVALID: .*AGENT\.md.*"tols".* \(fix: .+\)$/);
  } finally {
    await t.close();
    await cleanup();
  }
});

test('the scheduler never ticks unless started: a kernel that only boots (oryx run, list) writes no execution', async () => {
  const { dir, cleanup } = await tempDir();
  const t = await schedulerKernel(dir, { tasks: [{ name: 'tick', agent: 'assistant', message: 'm', every: '1s' }] });
  try {
    await t.service.process({ agent: 'assistant', message: 'a normal run' });
    const listed = await (t.kernel.service('scheduler') as TaskScheduler).list();
    assert.is(listed[0]!.name, 'tick');
    assert.is(listed[0]!.source, 'config');
    await sleep(2500);
    assert.equal(await executions(t, 'tick'), []);
    assert.is((t.kernel.service('scheduler') as TaskScheduler).running, false);
  } finally {
    await t.close();
    await cleanup();
  }
});

test('stop: running runs get the grace period, then are aborted and recorded timeout (ORYX_E_SCHEDULER_SHUTDOWN); queued ones never start', async () => {
  const { dir, cleanup } = await tempDir();
  const t = await schedulerKernel(dir, { tasks: [{ name: 'long', agent: 'assistant', message: 'm', every: '1s', overlap: 'queue' }] }, {
    step: () => ({ text: 'never', delayMs: 30_000 }),
  });
  try {
    const tasks = (t.kernel.service('scheduler') as TaskScheduler);
    await tasks.start();
    await waitFor(async () => (await executions(t, 'long')).some((e) => e.status === 'queued'), 60_000, 'a queued slot');
    const stopping = Date.now();
    const report = await tasks.stop({ graceMs: 300 });
    assert.equal(report, { finished: 0, aborted: 1 }, 'the one running run was aborted; queued ones are neither');
    const rows = await executions(t, 'long');
    const started = rows.filter((e) => e.started_at);
    assert.is(started.length, 1, JSON.stringify(rows.map((e) => [e.slot, e.status, e.started_at])));
    const run = started[0]!;
    assert.is(run.status, 'timeout');
    assert.is(run.error_code, 'ORYX_E_SCHEDULER_SHUTDOWN');
    assert.ok(Date.parse(run.finished_at!) >= stopping + 300, 'aborted only after the grace period');
    for (const q of rows.filter((e) => !e.started_at)) {
      assert.is(q.status, 'skipped');
      assert.is(q.error_code, 'ORYX_E_SCHEDULER_SHUTDOWN');
    }
  } finally {
    await t.close();
    await cleanup();
  }
});

test.run();
