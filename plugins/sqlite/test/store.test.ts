// The store kit's contract on both libsql drivers (the same suite runs on PostgreSQL in
// plugins/postgres), and what only SQLite has: its query plans and storage classes.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { storeContract } from '../../../kits/sql-store/test/store-contract.ts';
import { sqliteEngine } from './engine.ts';
import { openStore, tempDir } from './helpers.ts';

for (const driver of ['libsql', 'client'] as const) storeContract(sqliteEngine(driver));

test('history finds the N-th last user message through the partial index; integers bind as INTEGER', async () => {
  const { dir, cleanup } = await tempDir();
  const s = await openStore(path.join(dir, 'a.db'), 'libsql');
  try {
    const { id } = await s.store.create({ agent: 'a' });
    const plan = JSON.stringify(await s.db.query("EXPLAIN QUERY PLAN SELECT seq FROM messages WHERE session_id = ? AND role = 'user' ORDER BY seq DESC LIMIT 1 OFFSET ?", [id, 1]));
    assert.match(plan, 'messages_user_turns');
    await s.db.execute('CREATE TABLE u (d)');
    await s.db.execute('INSERT INTO u (d) VALUES (?), (?)', [true, 7]);
    assert.equal(await s.db.query('SELECT typeof(d) AS t FROM u'), [{ t: 'integer' }, { t: 'integer' }]);
  } finally {
    await s.close();
    await cleanup();
  }
});

test('appends keep the list order exact, whether or not they rewrite updated_at (the newest session keeps it for up to a second)', async () => {
  const { dir, cleanup } = await tempDir();
  const s = await openStore(path.join(dir, 'a.db'), 'libsql');
  try {
    // Times are kept to the millisecond and equal ones order by id: each step starts in a later one.
    const nextMs = async () => { const now = Date.now(); while (Date.now() <= now) await sleep(1); };
    const a = await s.store.create({ agent: 'x' });
    await nextMs();
    const b = await s.store.create({ agent: 'x' });
    const order = async () => (await s.store.list()).items.map((i) => i.id);
    await nextMs();
    await s.store.append(b.id, [{ role: 'user', content: 'to the newest' }]);
    assert.equal(await order(), [b.id, a.id]);
    await nextMs();
    await s.store.append(a.id, [{ role: 'user', content: 'to the older one' }]);
    assert.equal(await order(), [a.id, b.id], 'a session that was not the newest moves to the top');
    const before = (await s.store.get(a.id))!.updatedAt;
    await s.store.append(a.id, [{ role: 'assistant', content: 'again' }, { role: 'assistant', content: 'and again' }]);
    await nextMs();
    await s.store.append(b.id, [{ role: 'assistant', content: 'b again' }]);
    assert.equal(await order(), [b.id, a.id]);
    assert.equal((await s.store.list({ agent: 'x' })).items.map((i) => i.id), [b.id, a.id]);
    const info = (await s.store.get(a.id))!;
    assert.equal([info.messageCount, info.title, (await s.store.get(b.id))!.messageCount], [3, 'to the older one', 2]);
    assert.ok(info.updatedAt >= before && info.updatedAt <= new Date().toISOString());
  } finally {
    await s.close();
    await cleanup();
  }
});

test.run();
