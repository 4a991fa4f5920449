// Time limits on one timer per duration (tool calls, runs): each fires once, not before its
// time, not at all once cancelled, and only a live keep-alive limit holds the process open.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deadline } from '@oryxos/kernel/internal';

/** Waits (up to 10 s) until `done()` holds; the limits below are short, this only bounds a failure. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) await sleep(10);
}

test('limits of one duration fire in order, each once and not before its time; a cancelled one never fires', async () => {
  const fired: string[] = [];
  const set = performance.now();
  const times: number[] = [];
  const a = deadline(40, () => { fired.push('a'); times.push(performance.now() - set); });
  const b = deadline(40, () => fired.push('b'));
  const c = deadline(40, () => { fired.push('c'); times.push(performance.now() - set); });
  b.cancel();
  await until(() => fired.length >= 2);
  await sleep(60);
  assert.equal(fired, ['a', 'c']);
  assert.ok(times.every((t) => t >= 40), `fired after ${times.join(', ')} ms`);
  a.cancel(); // after firing: nothing happens
  c.cancel();
  assert.equal(fired, ['a', 'c']);
});

test('a lane whose limits were all cancelled still fires a limit set later, at that limit\'s time', async () => {
  for (let i = 0; i < 100; i++) deadline(30, () => assert.unreachable('cancelled')).cancel();
  let at = 0;
  await sleep(15);
  const set = performance.now();
  deadline(30, () => { at = performance.now() - set; });
  await until(() => at > 0);
  assert.ok(at >= 30, `fired after ${at} ms`);
});

test('a limit set while another fires, and limits of other durations, fire too', async () => {
  const fired: string[] = [];
  deadline(20, () => { fired.push('first'); deadline(20, () => fired.push('chained')); });
  deadline(35, () => fired.push('other'));
  await until(() => fired.length === 3);
  assert.equal([...fired].sort(), ['chained', 'first', 'other']);
  assert.ok(fired.indexOf('first') < fired.indexOf('chained'));
});

const kernelEntry = createRequire(import.meta.url).resolve('@oryxos/kernel/internal');

/** Runs a script in a fresh node process; resolves to its output once it exits. */
function child(script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--input-type=module', '-e', `import { deadline } from ${JSON.stringify(kernelEntry)};\n${script}`]);
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { out += d; });
    const kill = setTimeout(() => { p.kill(); reject(new Error(`still running after 20 s: ${out}`)); }, 20_000);
    p.on('close', () => { clearTimeout(kill); resolve(out); });
  });
}

test('a live limit keeps the process running until it fires; cancelled or keepAlive: false ones do not hold it', async () => {
  assert.is((await child("deadline(200, () => console.log('fired'));")).trim(), 'fired');
  // Both would fire after 60 s: the process ends long before (the child is killed after 20 s).
  assert.is((await child("deadline(60_000, () => console.log('quiet fired'), { keepAlive: false }); deadline(60_000, () => console.log('cancelled fired')).cancel(); console.log('end');")).trim(), 'end');
});

test.run();
