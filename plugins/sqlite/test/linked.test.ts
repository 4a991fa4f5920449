// A database file reached by two names in one process (an eval case's copy of a project links the
// project's database) is one connection: two connections would wait for each other's write lock
// inside a synchronous call, and the event loop the first one needs to commit would be blocked.
import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DRIVERS, tempDir } from './helpers.ts';
import { enableWal, openDatabase } from '../src/index.ts';

for (const driver of DRIVERS) {
  test(`${driver}: a write through a link waits for a transaction through the real name, without a busy timeout`, async () => {
    const { dir, cleanup } = await tempDir();
    const file = path.join(dir, 'oryx.db');
    const linked = path.join(dir, 'case', 'oryx.db');
    try {
      const first = await openDatabase({ kind: 'file', path: file }, { driver, busyTimeoutMs: 1000 });
      await enableWal(first);
      await first.execute('CREATE TABLE t (v TEXT NOT NULL)');
      await mkdir(path.dirname(linked));
      await symlink(file, linked);
      const second = await openDatabase({ kind: 'file', path: linked }, { driver, busyTimeoutMs: 1000 });
      // The first holds the write lock across an await; the second writes meanwhile.
      const holding = first.transaction(async (tx) => {
        await tx.execute("INSERT INTO t (v) VALUES ('first')");
        await sleep(200);
        await tx.execute("INSERT INTO t (v) VALUES ('first again')");
      });
      await sleep(20);
      const writing = second.execute("INSERT INTO t (v) VALUES ('second')");
      // Two connections: the second's write would wait for the lock inside a synchronous call,
      // the first could never commit, and the second would fail ORYX_E_SQLITE_BUSY after 1 s.
      await Promise.all([holding, writing]);
      assert.equal((await second.query<{ v: string }>('SELECT v FROM t ORDER BY rowid')).map((r) => r.v), ['first', 'first again', 'second']);
      await second.close();
      await first.close();
    } finally {
      await cleanup();
    }
  });
}

test.run();
