// A SIGKILL in the middle of a stream of appends (the mid-run kill is in store-contract.ts, for every engine).
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Worker } from '../../../kits/sql-store/test/child.ts';
import { SQLITE_WORKER_ENV } from './engine.ts';
import { openStore, tempDir } from './helpers.ts';
import { assertConsistent } from '../../../kits/sql-store/test/store-contract.ts';

test('SIGKILL during a stream of appends: only whole appends survive', async () => {
  const { dir, cleanup } = await tempDir();
  const worker = new Worker(['append-loop', dir], SQLITE_WORKER_ENV);
  try {
    await worker.waitFor((l) => l.startsWith('BATCHES ') && Number(l.slice(8)) >= 300);
    await worker.kill();
    const s = await openStore(path.join(dir, '.oryxos', 'oryx.db'), 'libsql');
    try {
      let total = 0;
      for (let i = 0; i < 4; i++) {
        const id = `loop-${i}`;
        const stored = await s.store.messages(id);
        assertConsistent(stored);
        assert.is(stored.length % 3, 0, `${id}: a whole number of 3-message appends`);
        for (let j = 0; j < stored.length; j += 3) {
          const batch = stored[j]!.message.content.slice(1);
          assert.equal(stored.slice(j, j + 3).map((m) => m.message.role), ['user', 'assistant', 'tool']);
          assert.is(stored[j + 2]!.message.content, `r${batch}`);
        }
        assert.is((await s.store.get(id))?.messageCount, stored.length, 'message_count agrees with the rows');
        total += stored.length / 3;
      }
      assert.ok(total >= 300, `at least the 300 batches reported before the kill (${total})`);
      assert.equal(await s.db.query('PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
    } finally {
      await s.close();
    }
  } finally {
    await worker.kill();
    await cleanup();
  }
});

test.run();
