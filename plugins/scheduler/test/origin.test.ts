// A scheduled run carries its slot as its origin (task, slot, how it was fired, the execution
// row), as data a tracing plugin makes the parent span of the run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { STAGE, type Plugin, type RunOrigin } from '@oryxos/kernel';
import type { TaskScheduler } from '../src/service.ts';
import { executions, schedulerKernel, tempDir } from './helpers.ts';

test('oryx schedule run: the run\'s origin is the task\'s slot, naming its execution row', async () => {
  const { dir, cleanup } = await tempDir();
  const seen: (RunOrigin | undefined)[] = [];
  const spy: Plugin = { name: 'origins', version: '1.0.0', kernel: '^1', setup(k) { k.hooks.runStart.tapPromise({ stage: STAGE.OBSERVE }, async (run) => { seen.push(run.origin); }); } };
  const t = await schedulerKernel(dir, { tasks: [{ name: 'brief', agent: 'assistant', message: 'report', cron: '0 8 * * *' }] }, { plugins: [spy] });
  try {
    const before = Date.now();
    const row = await (t.kernel.service('scheduler') as TaskScheduler).run('brief');
    assert.is(row.status, 'ok');
    const [execution] = await executions(t, 'brief');
    assert.is(seen.length, 1);
    const origin = seen[0]!;
    assert.is(origin.name, 'scheduler brief');
    assert.ok(origin.startedAt! >= before && origin.startedAt! <= Date.now());
    assert.equal(origin.attributes, { 'oryx.task.name': 'brief', 'oryx.task.slot': execution!.slot, 'oryx.task.fired_by': 'manual', 'oryx.task.execution_id': execution!.id });
  } finally {
    await t.close();
    await cleanup();
  }
});

test.run();
