// Exact text on SQLite beyond the store's contract (store-contract.ts sends any string through
// every column on every engine): blobs that look like tags, and migration 4, which repaired
// the rows whose NUL cut every read.
import path from 'node:path';
import Libsql from 'libsql';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { migrate, openDatabase } from '../src/index.ts';
import { SHIPPED_V5 } from './fixtures/schema-v5.ts';
import { DRIVERS, openStore, tempDir } from './helpers.ts';

for (const driver of DRIVERS) {
  test(`[${driver}] real blobs that look like tags round-trip as blobs, byte for byte`, async () => {
    const { dir, cleanup } = await tempDir();
    const s = await openStore(path.join(dir, 'x.db'), driver);
    try {
      await s.db.execute('CREATE TABLE blobs (b BLOB)');
      const blobs = [new Uint8Array([1, 0, 2]), new TextEncoder().encode('oryx:s:"not a string"'), new TextEncoder().encode('oryx:b:x'), new Uint8Array()];
      for (const b of blobs) await s.db.execute('INSERT INTO blobs (b) VALUES (?)', [b]);
      const rows = await s.db.query<{ b: Uint8Array }>('SELECT b FROM blobs ORDER BY rowid');
      assert.equal(rows.map((r) => [...r.b]), blobs.map((b) => [...b]));
      assert.ok(rows.every((r) => r.b instanceof Uint8Array));
    } finally {
      await s.close();
      await cleanup();
    }
  });
}

test('migration 4 gives back the text after a NUL in the store\'s rows written before it (both drivers read them whole)', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const file = path.join(dir, 'old.db');
    const old = await openDatabase({ kind: 'file', path: file }, { driver: 'libsql', busyTimeoutMs: 1000 });
    // a database at version 3, as the plugin then made it
    await migrate(old, SHIPPED_V5.slice(0, 3));
    await old.close();
    // What the previous version wrote: the NUL's bytes are in the file, every read stopped at them.
    const raw = new Libsql(file);
    raw.prepare("INSERT INTO sessions (id, agent, title, created_at, updated_at, message_count) VALUES ('old', 'a', ?, 'now', 'now', 2)").run('t\0itle');
    raw.prepare("INSERT INTO messages (session_id, seq, role, content, created_at) VALUES ('old', 1, 'user', ?, 'now')").run('a\0b');
    raw.prepare("INSERT INTO messages (session_id, seq, role, content, tool_call_id, name, created_at) VALUES ('old', 2, 'tool', ?, ?, 'cat', 'now')").run('\0\0PNG', 'c\0d');
    assert.is((raw.prepare("SELECT content FROM messages WHERE seq = 1").get() as { content: string }).content, 'a', 'the bug: cut at the NUL');
    raw.close();

    for (const driver of DRIVERS) {
      const s = await openStore(file, driver);
      try {
        assert.equal((await s.store.messages('old')).map((m) => m.message), [
          { role: 'user', content: 'a\0b' },
          { role: 'tool', content: '\0\0PNG', toolCallId: 'c\0d', name: 'cat' },
        ], driver);
        assert.is((await s.store.get('old'))?.title, 't\0itle');
      } finally {
        await s.close();
      }
    }
  } finally {
    await cleanup();
  }
});

test.run();
