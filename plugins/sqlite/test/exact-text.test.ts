// Every JavaScript string round-trips exactly through both drivers: NUL, lone surrogates,
// every plane, very long. Older rows whose NUL cut every read are repaired by migration 4.
import path from 'node:path';
import fc from 'fast-check';
import Libsql from 'libsql';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Message } from '@oryxos/kernel';
import { migrate, openDatabase } from '../src/index.ts';
import { SHIPPED_V5 } from './fixtures/schema-v5.ts';
import { DRIVERS, openStore, tempDir } from './helpers.ts';

/** Any UTF-16 code unit: NUL, lone surrogates, halves of pairs in either order. */
const codeUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 300 });
/** Any code point of any plane (astral ones as surrogate pairs). */
const codePoints = fc.string({ unit: 'binary', maxLength: 300 });
const special = fc.constantFrom('', '\0', 'a\0b', '\0\0\0', '\uD800', 'x\uDFFF', '\uDC00\uD800', '😀\0😀', 'oryx:s:"x"', 'oryx:b:', '\u{10FFFF}\uFFFF\uFFFE');
const anyString = fc.oneof(codeUnits, codePoints, special);

/** The same string repeated to about 1 MB, NULs and astral characters included. */
const LONG = 'a\0b\uD800😀\u{10FFFF}é\n'.repeat(100_000);

/** Text columns of other plugins' tables (audit, scheduler, notify: any TEXT column), written through the database service. */
const OTHER_TABLE = 'CREATE TABLE IF NOT EXISTS other_plugin (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, v TEXT)';

for (const driver of DRIVERS) {
  test(`[${driver}] any string round-trips through every message column and the session title (property)`, async () => {
    const { dir, cleanup } = await tempDir();
    const s = await openStore(path.join(dir, 'x.db'), driver);
    try {
      let n = 0;
      await fc.assert(fc.asyncProperty(anyString, anyString, anyString, anyString, async (content, callId, name, arg) => {
        const id = `s${n++}`;
        await s.store.create({ agent: 'a', id, title: content });
        const messages: Message[] = [
          { role: 'user', content },
          { role: 'assistant', content: arg, toolCalls: [{ id: callId, name, args: { text: arg, [arg]: content } }] },
          { role: 'tool', toolCallId: callId, name, content, isError: true },
        ];
        await s.store.append(id, messages);
        const back = await s.store.messages(id);
        assert.equal(back.map((m) => m.message), messages);
        assert.equal((await s.store.history(id, 1)).map((m) => m.message), messages);
        assert.is((await s.store.get(id))?.title, content);
      }), { numRuns: 150 });
    } finally {
      await s.close();
      await cleanup();
    }
  });

  test(`[${driver}] any string round-trips through the database service in another plugin's text column (property)`, async () => {
    const { dir, cleanup } = await tempDir();
    const s = await openStore(path.join(dir, 'x.db'), driver);
    try {
      await s.db.execute(OTHER_TABLE);
      await fc.assert(fc.asyncProperty(anyString, async (text) => {
        const r = await s.db.execute("INSERT INTO other_plugin (kind, v) VALUES ('t', ?)", [text]);
        const [row] = await s.db.query<Record<string, unknown>>('SELECT v FROM other_plugin WHERE id = ?', [Number(r.lastInsertRowid)]);
        assert.is(row?.v, text);
        // the value is found again by equality, as stored
        const [{ n }] = await s.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM other_plugin WHERE v = ?', [text]);
        assert.ok(n >= 1, 'v = ? finds it');
      }), { numRuns: 200 });
    } finally {
      await s.close();
      await cleanup();
    }
  });

  test(`[${driver}] a 1 MB message with NULs and lone surrogates, and real blobs that look like tags, round-trip`, async () => {
    const { dir, cleanup } = await tempDir();
    const s = await openStore(path.join(dir, 'x.db'), driver);
    try {
      const { id } = await s.store.create({ agent: 'a' });
      await s.store.append(id, [{ role: 'user', content: LONG }, { role: 'assistant', content: `${LONG}\uDBFF` }]);
      const back = await s.store.messages(id);
      assert.ok(back[0]!.message.content === LONG, 'the long user message');
      assert.ok(back[1]!.message.content === `${LONG}\uDBFF`, 'the long answer ending in a lone surrogate');

      await s.db.execute('CREATE TABLE blobs (b BLOB)');
      const blobs = [new Uint8Array([1, 0, 2]), new TextEncoder().encode('oryx:s:"not a string"'), new TextEncoder().encode('oryx:b:x'), new Uint8Array()];
      for (const b of blobs) await s.db.execute('INSERT INTO blobs (b) VALUES (?)', [b]);
      const rows = await s.db.query<{ b: Uint8Array }>('SELECT b FROM blobs ORDER BY rowid');
      assert.equal(rows.map((r) => [...r.b]), blobs.map((b) => [...b]), 'a blob stays a blob, byte for byte');
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
