// The store's contract on both libsql drivers (the same suite runs on PostgreSQL in
// plugins/postgres), and what only SQLite has: its query plans and storage classes.
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openStore, tempDir } from './helpers.ts';
import { sqliteEngine, storeContract } from './store-contract.ts';

for (const driver of ['libsql', 'client'] as const) storeContract(sqliteEngine(driver, () => import('../src/index.ts')));

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

test.run();
