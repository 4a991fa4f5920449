import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Message } from '@oryxos/kernel';
import { DRIVERS, openStore, rejection, tempDir } from './helpers.ts';

for (const driver of DRIVERS) {
  test(`[${driver}] append and read back: one row per message, exact shape, seq in order`, async () => {
    const { dir, cleanup } = await tempDir();
    const s = await openStore(path.join(dir, 'a.db'), driver);
    try {
      const session = await s.store.create({ agent: 'assistant' });
      const msgs: Message[] = [
        { role: 'user', content: 'list the files' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'list_dir', args: { path: '.' } }] },
        { role: 'tool', toolCallId: 'c1', name: 'list_dir', content: 'a.txt\nb.txt' },
        { role: 'tool', toolCallId: 'c2', name: 'x', content: 'boom', isError: true },
        { role: 'assistant', content: 'two files', reasoning: 'kept' } as Message,
      ];
      await s.store.append(session.id, msgs.slice(0, 2));
      await s.store.append(session.id, msgs.slice(2));
      const stored = await s.store.messages(session.id);
      assert.equal(stored.map((m) => m.seq), [1, 2, 3, 4, 5]);
      assert.equal(stored.map((m) => m.message), msgs);
      assert.not.ok('toolCalls' in stored[0]!.message, 'no empty fields invented');
      const [{ n }] = await s.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM messages WHERE session_id = ?', [session.id]);
      assert.is(n, 5);
      const info = await s.store.get(session.id);
      assert.is(info?.messageCount, 5);
      assert.is(info?.title, 'list the files');
      assert.equal((await s.store.messages(session.id, { limit: 2 })).map((m) => m.seq), [4, 5]);
    } finally {
      await s.close();
      await cleanup();
    }
  });

  test(`[${driver}] history(id, N) starts at the N-th last user message`, async () => {
    const { dir, cleanup } = await tempDir();
    const s = await openStore(path.join(dir, 'a.db'), driver);
    try {
      const { id } = await s.store.create({ agent: 'a' });
      for (let turn = 1; turn <= 5; turn++) {
        await s.store.append(id, [{ role: 'user', content: `q${turn}` }]);
        await s.store.append(id, [{ role: 'assistant', content: `a${turn}` }]);
      }
      const h2 = await s.store.history(id, 2);
      assert.equal(h2.map((m) => m.message.content), ['q4', 'a4', 'q5', 'a5']);
      assert.is(h2[0]!.seq, 7);
      assert.is((await s.store.history(id, 50)).length, 10, 'fewer turns than asked: everything');
      assert.equal(await s.store.history(id, 0), []);
      assert.equal(await s.store.history('nope', 3), []);
      const plan = JSON.stringify(await s.db.query("EXPLAIN QUERY PLAN SELECT seq FROM messages WHERE session_id = ? AND role = 'user' ORDER BY seq DESC LIMIT 1 OFFSET ?", [id, 1]));
      assert.match(plan, 'messages_user_turns', 'the N-th last user message is found through the partial index');
    } finally {
      await s.close();
      await cleanup();
    }
  });

  test(`[${driver}] list is newest first, paged by cursor, filtered by agent; delete removes messages`, async () => {
    const { dir, cleanup } = await tempDir();
    const s = await openStore(path.join(dir, 'a.db'), driver);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const info = await s.store.create({ agent: i % 2 ? 'b' : 'a', id: `s${i}` });
        ids.push(info.id);
        await s.store.append(info.id, [{ role: 'user', content: `m${i}` }]);
        await new Promise((r) => setTimeout(r, 2));
      }
      const page1 = await s.store.list({ limit: 2 });
      assert.equal(page1.items.map((i) => i.id), ['s4', 's3']);
      assert.ok(page1.nextCursor);
      const page2 = await s.store.list({ limit: 2, cursor: page1.nextCursor });
      assert.equal(page2.items.map((i) => i.id), ['s2', 's1']);
      const page3 = await s.store.list({ limit: 2, cursor: page2.nextCursor });
      assert.equal(page3.items.map((i) => i.id), ['s0']);
      assert.is(page3.nextCursor, undefined);
      assert.equal((await s.store.list({ agent: 'b' })).items.map((i) => i.id), ['s3', 's1']);
      const bad = await rejection(() => s.store.list({ cursor: 'garbage' }));
      assert.is(bad.code, 'ORYX_E_SQLITE_BAD_CURSOR');

      assert.is(await s.store.delete('s2'), true);
      assert.is(await s.store.delete('s2'), false);
      assert.is(await s.store.get('s2'), undefined);
      const [{ n }] = await s.db.query<{ n: number }>("SELECT COUNT(*) AS n FROM messages WHERE session_id = 's2'");
      assert.is(n, 0);
    } finally {
      await s.close();
      await cleanup();
    }
  });

  test(`[${driver}] user errors carry stable codes: duplicate id, append to a missing session`, async () => {
    const { dir, cleanup } = await tempDir();
    const s = await openStore(path.join(dir, 'a.db'), driver);
    try {
      await s.store.create({ agent: 'a', id: 'fixed' });
      const dup = await rejection(() => s.store.create({ agent: 'a', id: 'fixed' }));
      assert.is(dup.code, 'ORYX_E_SQLITE_SESSION_EXISTS');
      const missing = await rejection(() => s.store.append('ghost', [{ role: 'user', content: 'x' }]));
      assert.is(missing.code, 'ORYX_E_SQLITE_SESSION_NOT_FOUND');
      const [{ n }] = await s.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM messages');
      assert.is(n, 0);
    } finally {
      await s.close();
      await cleanup();
    }
  });

  test(`[${driver}] an append that keeps conflicting fails clearly and writes nothing`, async () => {
    const { dir, cleanup } = await tempDir();
    const s = await openStore(path.join(dir, 'a.db'), driver, { appendRetries: 2 });
    try {
      const { id } = await s.store.create({ agent: 'a' });
      await s.store.append(id, [{ role: 'user', content: 'first' }]);
      // Another writer taking the same positions, as sqld would report it.
      await s.db.execute(`CREATE TRIGGER steal BEFORE INSERT ON messages WHEN NEW.content = 'second'
        BEGIN SELECT RAISE(ABORT, 'UNIQUE constraint failed: messages.session_id, messages.seq'); END`);
      const error = await rejection(() => s.store.append(id, [{ role: 'assistant', content: 'ok' }, { role: 'user', content: 'second' }]));
      assert.is(error.code, 'ORYX_E_SQLITE_APPEND_CONFLICT');
      assert.match(error.message, '3 times');
      const stored = await s.store.messages(id);
      assert.equal(stored.map((m) => m.message.content), ['first'], 'the half of the append before the conflict was rolled back');
      assert.is((await s.store.get(id))?.messageCount, 1);
    } finally {
      await s.close();
      await cleanup();
    }
  });

  test(`[${driver}] database service: named and positional params, booleans, blobs, rollback, wrapped errors`, async () => {
    const { dir, cleanup } = await tempDir();
    const s = await openStore(path.join(dir, 'a.db'), driver);
    try {
      const { db } = s;
      await db.execute('CREATE TABLE t (a INTEGER, b TEXT, c BLOB, d)');
      const r = await db.execute('INSERT INTO t (a, b, c, d) VALUES (:a, :b, :c, :d)', { a: 1, b: 'x', c: new Uint8Array([1, 2]), d: true });
      assert.is(r.rowsAffected, 1);
      await db.execute('INSERT INTO t (a, b, d) VALUES (?, ?, ?)', [2, 'y', 7]);
      const rows = await db.query<{ a: number; b: string; c: Uint8Array | null; d: number; td: string }>('SELECT a, b, c, d, typeof(d) AS td FROM t ORDER BY a LIMIT ?', [10]);
      assert.equal(rows.map((x) => [x.a, x.b, x.d, x.td]), [[1, 'x', 1, 'integer'], [2, 'y', 7, 'integer']]);
      assert.ok(rows[0]!.c instanceof Uint8Array);
      assert.equal([...rows[0]!.c!], [1, 2]);

      const boom = await rejection(() => db.transaction(async (tx) => {
        await tx.execute('INSERT INTO t (a) VALUES (3)');
        throw new Error('boom');
      }));
      assert.is(boom.message, 'boom');
      const [{ n }] = await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM t');
      assert.is(n, 2, 'the failed transaction left nothing');

      const inner = await db.transaction(async (tx) => {
        await tx.execute('INSERT INTO t (a) VALUES (4)');
        // the outer handle inside a transaction joins it instead of deadlocking
        return (await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM t'))[0]!.n;
      });
      assert.is(inner, 3);

      // work started inside a transaction but run after it (a timer) goes through the normal path
      let leaked: { execute(sql: string): Promise<unknown> } | undefined;
      let later: Promise<unknown> | undefined;
      await db.transaction(async (tx) => {
        leaked = tx;
        later = new Promise((resolve, reject) => setTimeout(() => db.execute('INSERT INTO t (a) VALUES (5)').then(resolve, reject), 5));
      });
      await later;
      assert.is((await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM t'))[0]!.n, 4);
      assert.is((await rejection(() => leaked!.execute('SELECT 1'))).code, 'ORYX_E_SQLITE_CLOSED', 'a tx handle kept past its end says so');

      const bad = await rejection(() => db.query('SELECT * FROM no_such_table'));
      assert.is(bad.code, 'ORYX_E_SQLITE_QUERY');
      assert.match(bad.message, 'no_such_table');
      assert.match(bad.message, 'SELECT * FROM no_such_table');
    } finally {
      await s.close();
      await cleanup();
    }
  });
}

test('appends run concurrently in one process never interleave inside one call', async () => {
  const { dir, cleanup } = await tempDir();
  const s = await openStore(path.join(dir, 'a.db'), 'libsql');
  try {
    const { id } = await s.store.create({ agent: 'a' });
    await Promise.all(Array.from({ length: 20 }, (_, i) => s.store.append(id, [
      { role: 'user', content: `u${i}` }, { role: 'assistant', content: `a${i}` },
    ])));
    const stored = await s.store.messages(id);
    assert.equal(stored.map((m) => m.seq), Array.from({ length: 40 }, (_, i) => i + 1));
    for (let i = 0; i < 40; i += 2) {
      assert.is(stored[i + 1]!.message.content, stored[i]!.message.content.replace('u', 'a'));
    }
  } finally {
    await s.close();
    await cleanup();
  }
});

test('after close the store says so with a code', async () => {
  const { dir, cleanup } = await tempDir();
  const s = await openStore(path.join(dir, 'a.db'), 'libsql');
  await s.close();
  try {
    const error = await rejection(() => s.db.query('SELECT 1'));
    assert.is(error.code, 'ORYX_E_SQLITE_CLOSED');
  } finally {
    await cleanup();
  }
});

test.run();
