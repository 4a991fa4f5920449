import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { processAlive } from '../src/index.ts';

test('processAlive: this process and a running child are alive; an ended child and impossible ids are not', async () => {
  assert.ok(processAlive(process.pid));
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  await once(child, 'spawn');
  const pid = child.pid!;
  assert.ok(processAlive(pid), 'running');
  child.kill('SIGKILL');
  await once(child, 'exit');
  assert.not.ok(processAlive(pid), 'ended and reaped');
  for (const bad of [0, -1, 1.5, Number.NaN]) assert.not.ok(processAlive(bad), String(bad));
});

test.run();
