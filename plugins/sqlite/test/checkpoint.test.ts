// The checkpoint schedule under commits that never let the event loop turn (a run whose every
// step resolves at once: a cached or scripted model, a tool that answers from memory). Each
// commit past the two-second bound used to queue a checkpoint of its own for the next turn, all
// held until it came (in the loop benchmark ~31 a run, ~6 KB of heap a run); one waits at most.
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DRIVERS, tempDir } from './helpers.ts';
import { Checkpoints, MAX_CHECKPOINT_MS } from '../src/checkpoint.ts';
import { enableWal, openDatabase } from '../src/index.ts';

const pendingImmediates = () => process.getActiveResourcesInfo().filter((r) => r === 'Immediate').length;

/** Runs `fn` with the clock moved `ms` ahead, as if that long had passed since the connection's last checkpoint. */
async function later<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  const now = Date.now;
  Date.now = () => now() + ms;
  try {
    return await fn();
  } finally {
    Date.now = now;
  }
}

test('commits past the time bound with no turn of the event loop between them queue one checkpoint, which runs once', async () => {
  let checkpoints = 0;
  const c = new Checkpoints(async () => { checkpoints++; });
  const before = pendingImmediates();
  await later(MAX_CHECKPOINT_MS + 1000, async () => {
    for (let i = 0; i < 1000; i++) c.committed();
  });
  // One checkpoint and one busy notice wait, not a thousand.
  assert.ok(pendingImmediates() - before <= 2, `${pendingImmediates() - before} immediates pending after 1,000 commits`);
  await nextTurn();
  await nextTurn();
  assert.is(checkpoints, 1, 'the due checkpoint ran once');
  await later(2 * MAX_CHECKPOINT_MS + 2000, async () => { c.committed(); });
  await nextTurn();
  await nextTurn();
  assert.is(checkpoints, 2, 'the next commit past the bound schedules the next one');
  await c.close();
});

for (const driver of DRIVERS) {
  test(`${driver}: 500 commits in a row past the bound leave a bounded number of timers, and the WAL is checkpointed at the next turn`, async () => {
    const { dir, cleanup } = await tempDir();
    const db = await openDatabase({ kind: 'file', path: path.join(dir, 'c.db') }, { driver, busyTimeoutMs: 5000 });
    try {
      await enableWal(db);
      await db.execute('CREATE TABLE rows (v INTEGER NOT NULL)');
      await nextTurn();
      const before = pendingImmediates();
      await later(MAX_CHECKPOINT_MS + 1000, async () => {
        for (let i = 0; i < 500; i++) await db.execute('INSERT INTO rows (v) VALUES (?)', [i]);
      });
      assert.ok(pendingImmediates() - before <= 3, `${pendingImmediates() - before} immediates pending after 500 commits`);
      await nextTurn();
      await nextTurn();
      const [row] = await db.query<{ log: number; checkpointed: number }>('PRAGMA wal_checkpoint(PASSIVE)');
      assert.is(row!.log, row!.checkpointed, 'every page of the WAL is in the main file');
      assert.is((await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM rows'))[0]!.n, 500);
    } finally {
      await db.close();
      await cleanup();
    }
  });
}

test.run();
