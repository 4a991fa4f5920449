// The claim of a mail, on a real SQLite database: a claim judged stale is taken over only if
// its owner did not renew it in between (a compare-and-set on owner and heartbeat), so a mail
// being answered is never answered a second time by a process that looked a moment too early.
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import { MailClaims } from '../src/claims.ts';
import { MIGRATIONS, OWNER } from '../src/migrations.ts';

test('a stale-looking claim renewed before the takeover stays its owner\'s; one not renewed is taken over', async () => {
  const t = await testKernel({ plugins: [scripted([]), sqlite()] });
  try {
    const db = t.kernel.service('database');
    await db.migrate(OWNER, MIGRATIONS);
    const claims = new MailClaims(() => db, 'bot@imap:993/INBOX');
    const stale = () => false;
    const first = await claims.claim({ messageId: '<m1@example.com>', uid: 1, uidvalidity: 1, owner: 'host:1:a', isLive: stale });
    assert.ok(first.taken);
    // B reads the row and judges it stale; A renews it before B's update lands.
    const seenByB = (await claims.open())[0]!;
    await sleep(5);
    await claims.heartbeat(['<m1@example.com>'], 'host:1:a');
    const late = await claims.takeOver(seenByB, 'host:2:b', stale);
    assert.not.ok(late.taken, 'renewed in between: not taken over');
    const kept = (await claims.get('<m1@example.com>'))!;
    assert.equal([kept.owner, kept.attempts], ['host:1:a', 1]);
    // Not renewed: taken over, with one more attempt.
    const taken = await claims.takeOver(kept, 'host:2:b', stale);
    assert.ok(taken.taken);
    assert.equal([taken.row.owner, taken.row.attempts], ['host:2:b', 2]);
  } finally {
    await t.close();
  }
});

test.run();
