// Deferred writes (the audit trail's rows): they commit with the connection's next transaction,
// or on their own one turn of the event loop later; reads see them at once; a rollback keeps
// them; a failing one is reported and does not fail the transaction it joined. What is in the
// file is read through a second, independent connection.
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Libsql from 'libsql';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DRIVERS, rejection, tempDir } from './helpers.ts';
import { enableWal, openDatabase, type OpenDatabase } from '../src/index.ts';

async function setup(driver: (typeof DRIVERS)[number]) {
  const { dir, cleanup } = await tempDir();
  const file = path.join(dir, 'd.db');
  const db: OpenDatabase = await openDatabase({ kind: 'file', path: file }, { driver, busyTimeoutMs: 5000 });
  await enableWal(db);
  await db.execute('CREATE TABLE rows (v TEXT NOT NULL)');
  const other = new Libsql(file);
  // What another process would find in the file.
  const inFile = () => (other.prepare('SELECT v FROM rows ORDER BY rowid').all() as { v: string }[]).map((r) => r.v);
  return { db, file, inFile, async close() { other.close(); await db.close(); await cleanup(); } };
}

for (const driver of DRIVERS) {
  test(`${driver}: a deferred row commits with the next transaction, in it, and reads see it before`, async () => {
    const s = await setup(driver);
    try {
      s.db.defer('INSERT INTO rows (v) VALUES (?)', ['audit']);
      assert.equal(s.inFile(), [], 'not written yet');
      await s.db.transaction(async (tx) => {
        await tx.execute('INSERT INTO rows (v) VALUES (?)', ['message']);
      });
      assert.equal(s.inFile(), ['audit', 'message'], 'both committed by the one transaction');
      s.db.defer('INSERT INTO rows (v) VALUES (?)', ['seen']);
      assert.equal(await s.db.query('SELECT v FROM rows WHERE v = ?', ['seen']), [{ v: 'seen' }]);
    } finally {
      await s.close();
    }
  });

  test(`${driver}: a row write outside a transaction carries the deferred rows in one transaction; when it fails they stay queued`, async () => {
    const s = await setup(driver);
    try {
      await s.db.execute('CREATE UNIQUE INDEX rows_v ON rows (v)');
      s.db.defer('INSERT INTO rows (v) VALUES (?)', ['audit']);
      await s.db.execute('INSERT INTO rows (v) VALUES (?)', ['record']);
      assert.equal(s.inFile(), ['audit', 'record'], 'both in the file when the write returns');
      s.db.defer('INSERT INTO rows (v) VALUES (?)', ['kept']);
      const e = await rejection(() => s.db.execute('INSERT INTO rows (v) VALUES (?)', ['record']));
      assert.is(e.code, 'ORYX_E_SQLITE_QUERY');
      assert.match(e.message, 'UNIQUE');
      assert.equal(s.inFile(), ['audit', 'record'], 'the failed write took nothing with it');
      for (let i = 0; i < 20 && s.inFile().length < 3; i++) await nextTurn();
      assert.equal(s.inFile(), ['audit', 'record', 'kept']);
    } finally {
      await s.close();
    }
  });

  test(`${driver}: with no transaction to join, a deferred row is written on the next turn of the event loop`, async () => {
    const s = await setup(driver);
    try {
      s.db.defer('INSERT INTO rows (v) VALUES (?)', ['alone']);
      for (let i = 0; i < 20 && s.inFile().length === 0; i++) await nextTurn();
      assert.equal(s.inFile(), ['alone']);
    } finally {
      await s.close();
    }
  });

  test(`${driver}: a transaction that rolls back keeps the deferred rows it carried; a failing one is reported, not fatal`, async () => {
    const s = await setup(driver);
    try {
      s.db.defer('INSERT INTO rows (v) VALUES (?)', ['kept']);
      const e = await rejection(() => s.db.transaction(async (tx) => {
        await tx.execute('INSERT INTO rows (v) VALUES (?)', ['rolled back']);
        throw new Error('boom');
      }));
      assert.is(e.message, 'boom');
      const errors: unknown[] = [];
      s.db.defer('INSERT INTO missing (v) VALUES (?)', ['x'], (error) => errors.push(error));
      await s.db.execute('INSERT INTO rows (v) VALUES (?)', ['after']);
      assert.equal(s.inFile(), ['kept', 'after']);
      assert.is(errors.length, 1);
      assert.match(String((errors[0] as Error).message), 'missing');
    } finally {
      await s.close();
    }
  });

  test(`${driver}: closing writes what is still deferred; a closed connection reports a deferred row at once`, async () => {
    const s = await setup(driver);
    try {
      s.db.defer('INSERT INTO rows (v) VALUES (?)', ['last']);
      await s.db.close();
      assert.equal(s.inFile(), ['last']);
      const errors: { code?: string }[] = [];
      s.db.defer('INSERT INTO rows (v) VALUES (?)', ['late'], (error) => errors.push(error as { code?: string }));
      assert.equal(errors.map((e) => e.code), ['ORYX_E_SQLITE_CLOSED']);
    } finally {
      await s.close();
    }
  });
}

test('libsql: a synchronous write transaction carries the deferred rows, queues behind other work, joins an open transaction, and rolls back whole', async () => {
  const s = await setup('libsql');
  try {
    const writeSync = s.db.writeSync!;
    s.db.defer('INSERT INTO rows (v) VALUES (?)', ['audit']);
    const order: string[] = [];
    const slow = s.db.transaction(async (tx) => {
      await tx.execute('INSERT INTO rows (v) VALUES (?)', ['first']);
      await nextTurn();
      order.push('transaction');
    });
    const changed = await writeSync((tx) => {
      order.push('writeSync');
      return tx.execute('INSERT INTO rows (v) VALUES (?)', ['message']).rowsAffected;
    });
    await slow;
    assert.is(changed, 1);
    assert.equal(order, ['transaction', 'writeSync'], 'it waited for the transaction before it');
    assert.equal(s.inFile(), ['audit', 'first', 'message']);

    s.db.defer('INSERT INTO rows (v) VALUES (?)', ['kept']);
    const e = await rejection(() => writeSync((tx) => {
      tx.execute('INSERT INTO rows (v) VALUES (?)', ['rolled back']);
      tx.execute('INSERT INTO missing (v) VALUES (?)', ['x']);
    }));
    assert.is(e.code, 'ORYX_E_SQLITE_QUERY');
    assert.equal(s.inFile(), ['audit', 'first', 'message'], 'nothing of the failed one, nor the rows it carried');

    await s.db.transaction(async (tx) => {
      await tx.execute('INSERT INTO rows (v) VALUES (?)', ['outer']);
      await writeSync((inner) => inner.execute('INSERT INTO rows (v) VALUES (?)', ['joined']));
      assert.equal(s.inFile().slice(3), [], 'the joined write commits with the outer transaction');
    });
    assert.equal(s.inFile().slice(3), ['kept', 'outer', 'joined']);
  } finally {
    await s.close();
  }
});

test.run();
