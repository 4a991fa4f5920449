// Slots that pass while no scheduler runs follow catchUp when one starts again.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ExecutionRow } from '../src/index.ts';
import { SETTLE_MS } from '../src/engine.ts';
import { executions, schedulerKernel, sleep, tempDir, waitFor } from './helpers.ts';
import type { TaskScheduler } from '../src/service.ts';

const TASKS = (['latest', 'none', 'all'] as const).map((catchUp) => ({ name: `c-${catchUp}`, agent: 'assistant', message: catchUp, every: '1s', catchUp, overlap: 'queue' as const }));

/** Every whole second from the first slot to the last has exactly one row: nothing lost, nothing twice. */
function assertNoHoles(rows: ExecutionRow[], task: string): void {
  const times = rows.map((e) => Date.parse(e.slot));
  for (let i = 1; i < times.length; i++) assert.is(times[i]! - times[i - 1]!, 1000, `${task}: slot after ${rows[i - 1]!.slot} is the next second`);
}

test('restart after downtime: latest runs the newest missed slot once, none runs none, all runs all; the rest are recorded missed', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const first = await schedulerKernel(dir, { tasks: TASKS });
    await (first.kernel.service('scheduler') as TaskScheduler).start();
    await waitFor(async () => {
      for (const t of TASKS) if (!(await executions(first, t.name)).some((e) => e.status === 'ok')) return false;
      return true;
    }, 60_000, 'a first run of each task');
    await first.close({ keep: true });
    const stoppedAt = Date.now();
    // Downtime: at least 4 slots pass that a restart no longer counts as on time.
    await sleep(SETTLE_MS + 4500);

    const second = await schedulerKernel(dir, { tasks: TASKS });
    try {
      const restartedAt = Date.now();
      await (second.kernel.service('scheduler') as TaskScheduler).start();
      await waitFor(async () => {
        for (const t of TASKS) {
          const rows = await executions(second, t.name);
          if (!rows.some((e) => e.fired_by === 'schedule' && Date.parse(e.slot) > restartedAt && e.status === 'ok')) return false;
          if (rows.some((e) => e.status === 'running' || e.status === 'queued')) return false;
        }
        return true;
      }, 60_000, 'a scheduled run after the restart');
      await (second.kernel.service('scheduler') as TaskScheduler).stop();

      for (const t of TASKS) {
        const rows = await executions(second, t.name);
        assertNoHoles(rows, t.name);
        const gap = rows.filter((e) => Date.parse(e.slot) > stoppedAt && Date.parse(e.slot) <= restartedAt - SETTLE_MS);
        assert.ok(gap.length >= 3, `${t.name}: at least 3 slots passed while nothing ran (${gap.length})`);
        const caught = rows.filter((e) => e.fired_by === 'catch-up');
        const ranCaught = caught.filter((e) => e.status === 'ok');
        if (t.catchUp === 'latest') {
          assert.is(ranCaught.length, 1, 'latest: one missed slot runs');
          // The start counts slots as missed up to its own clock, which is at or after restartedAt.
          assert.is(ranCaught[0]!.slot, caught.at(-1)!.slot, 'latest: the newest missed slot runs');
          assert.ok(ranCaught[0]!.slot >= gap.at(-1)!.slot, 'latest: a slot of the downtime');
          assert.ok(caught.filter((e) => e.status === 'missed').length >= 2);
        } else if (t.catchUp === 'none') {
          assert.is(ranCaught.length, 0, 'none: no missed slot runs');
          assert.ok(gap.every((e) => e.status === 'missed' && e.error_code === 'ORYX_E_SCHEDULER_MISSED'));
        } else {
          assert.ok(ranCaught.length >= 3, 'all: every missed slot runs');
          assert.not.ok(rows.some((e) => e.status === 'missed'), 'all: nothing missed');
          for (let i = 1; i < ranCaught.length; i++) assert.ok(ranCaught[i]!.started_at! >= ranCaught[i - 1]!.finished_at!, 'one after the other');
        }
      }
    } finally {
      await second.close();
    }
  } finally {
    await cleanup();
  }
});

test('a new task, or one enabled again, does not count the time before as missed', async () => {
  const { dir, cleanup } = await tempDir();
  const t = await schedulerKernel(dir);
  try {
    const tasks = (t.kernel.service('scheduler') as TaskScheduler);
    await tasks.add({ name: 'later', agent: 'assistant', message: 'm', every: '1s', enabled: false });
    await sleep(3000);
    await tasks.start();
    await tasks.setEnabled('later', true);
    await waitFor(async () => (await executions(t, 'later')).some((e) => e.status === 'ok'), 60_000, 'a run');
    await tasks.stop();
    const rows = await executions(t, 'later');
    assert.not.ok(rows.some((e) => e.status === 'missed' || e.fired_by === 'catch-up'));
  } finally {
    await t.close();
    await cleanup();
  }
});

test('a late tick (the event loop stalled for 2.5 s, as on a loaded machine) runs every slot it was late for: none is missed', async () => {
  const { dir, cleanup } = await tempDir();
  const t = await schedulerKernel(dir, { tasks: [{ name: 'steady', agent: 'assistant', message: 'm', every: '1s', overlap: 'queue' }] });
  try {
    const tasks = (t.kernel.service('scheduler') as TaskScheduler);
    await tasks.start();
    await waitFor(async () => (await executions(t, 'steady')).some((e) => e.status === 'ok'), 60_000, 'a first run');
    // Neither a timer nor a tick worker's message is handled meanwhile: the next tick comes
    // after two slots or more have passed.
    const stalled = Date.now();
    while (Date.now() < stalled + 2500) { /* stall */ }
    const resumed = Date.now();
    await waitFor(async () => (await executions(t, 'steady')).filter((e) => e.status === 'ok' && Date.parse(e.slot) > resumed).length >= 2, 60_000, 'runs after the stall');
    await tasks.stop();
    const rows = await executions(t, 'steady');
    const shown = JSON.stringify(rows.map((e) => [e.slot, e.status, e.fired_by, e.error_code]));
    assertNoHoles(rows, 'steady');
    const during = rows.filter((e) => Date.parse(e.slot) > stalled && Date.parse(e.slot) <= resumed);
    assert.ok(during.length >= 2, shown);
    for (const e of during) assert.equal([e.status, e.fired_by], ['ok', 'schedule'], shown);
    assert.not.ok(rows.some((e) => e.status === 'missed'), shown);
  } finally {
    await t.close();
    await cleanup();
  }
});

test.run();
