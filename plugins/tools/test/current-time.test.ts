import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { one, run, tempDir } from './harness.ts';

let dir: string;
let cleanup: () => Promise<void>;
test.before.each(async () => { ({ dir, cleanup } = await tempDir()); });
test.after.each(async () => { await cleanup(); });

test('current_time: UTC instant, local time with offset and weekday in the zone asked for', async () => {
  const before = Date.now();
  const [utc, india, fallback] = await run(dir, [
    { name: 'current_time', args: { timezone: 'UTC' } },
    { name: 'current_time', args: { timezone: 'Asia/Kolkata' } },
    { name: 'current_time', args: {} },
  ], { sandbox: {} });
  const after = Date.now();
  const iso = /^utc: (\S+)$/m.exec(utc!.content)![1]!;
  assert.ok(Date.parse(iso) >= before - 1000 && Date.parse(iso) <= after, iso);
  assert.match(utc!.content, /^local: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00 \((Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), UTC\)$/m);
  assert.match(india!.content, /^local: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+05:30 \(\w+, Asia\/Kolkata\)$/m);
  const local = /^local: (\S+)/m.exec(india!.content)![1]!;
  assert.ok(Math.abs(Date.parse(local) - Date.parse(iso)) < 5000, 'the local time is the same instant');
  assert.is(fallback!.status, 'ok');
});

test('current_time: an unknown zone is an error result', async () => {
  const r = await one(dir, { name: 'current_time', args: { timezone: 'Mars/Olympus_Mons' } }, { sandbox: {} });
  assert.is(r.status, 'error');
  assert.match(r.content, /unknown time zone "Mars\/Olympus_Mons"/);
});

test.run();
