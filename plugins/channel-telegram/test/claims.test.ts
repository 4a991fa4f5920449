// The claim of an update, on a real SQLite database: a claim judged stale is taken over only if
// its owner did not renew it in between (a compare-and-set on owner and heartbeat), so an update
// being answered is never answered a second time by a process that looked a moment too early.
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import { TelegramStore } from '../src/store.ts';
import { MIGRATIONS, OWNER } from '../src/migrations.ts';

test('a stale-looking claim renewed before the takeover stays its owner\'s; one not renewed is taken over', async () => {
  const t = await testKernel({ plugins: [scripted([]), sqlite()] });
  try {
    const db = t.kernel.service('database');
    await db.migrate(OWNER, MIGRATIONS);
    const store = new TelegramStore(() => db, 'bot1');
    const first = await store.claim({ updateId: 7, kind: 'message', chatId: 1, userId: 2, payload: { text: 'hi' }, owner: 'host:1:a' });
    assert.ok(first.taken);
    const seenByB = (await store.open())[0]!;
    await sleep(5);
    await store.heartbeat([7], 'host:1:a');
    assert.is(await store.takeOver(seenByB, 'host:2:b'), undefined, 'renewed in between: not taken over');
    const kept = (await store.get(7))!;
    assert.equal([kept.owner, kept.attempts], ['host:1:a', 1]);
    const taken = await store.takeOver(kept, 'host:2:b');
    assert.equal([taken?.owner, taken?.attempts], ['host:2:b', 2]);
  } finally {
    await t.close();
  }
});

test.run();
