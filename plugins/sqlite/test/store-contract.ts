// The session store's contract, one suite for every engine: the sqlite plugin runs it on both
// libsql drivers (store.test.ts), the postgres plugin on PostgreSQL (its store.test.ts). Each
// engine supplies a fresh migrated database per test and the few statements that differ.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Plugin, Tool } from '@oryxos/kernel';
import type { AssistantMessage, Message } from '@oryxos/provider-spec';
import type { Database, StoredMessage } from '@oryxos/contracts';
import { scripted, testKernel, writeAgents } from '@oryxos/kernel/testing';
import type { SqliteSessionStore, SqliteSessionStoreOptions } from '../src/index.ts';
import { Worker } from './child.ts';
import { rejection, tempDir } from './helpers.ts';

/** A migrated database with the store on it. */
export interface OpenedStore {
  db: Omit<Database, 'migrate'>;
  store: SqliteSessionStore;
  close(): Promise<void>;
}

/** A project folder whose store plugin uses this engine's database. */
export interface EngineProject {
  dir: string;
  /** The engine's store plugin on this project's database. */
  plugin(options?: { leaseMs?: number; lockTimeoutMs?: number }): Plugin;
  /** Environment for the worker processes (fixtures/worker.mts) so they use the same database. */
  env: Record<string, string>;
  open(options?: SqliteSessionStoreOptions): Promise<OpenedStore>;
  cleanup(): Promise<void>;
}

export interface StoreEngine {
  name: string;
  project(): Promise<EngineProject>;
  sql: {
    /** A table `t` with an integer `a`, a text `b`, a blob `c` and an integer `d`. */
    table: string;
    /** A text column of another plugin's table: `other_plugin (id, kind, v)` with `id` generated. */
    otherTable: string;
    /** Makes the next insert of a message whose content is 'second' fail as a taken position. */
    stealPositions: string[];
  };
  codes: { query: string; closed: string };
  /** Runs of the string property (fewer on a server: each one is round trips). */
  propertyRuns: number;
}

const slow: Tool = {
  name: 'slow', description: 'takes a while', source: 'plugin',
  inputSchema: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] },
  async execute(args) { await sleep(100); return `slow ${args.label}`; },
};
const tools: Plugin = { name: 'test-tools', version: '1.0.0', kernel: '^1', setup(k) { k.registerTool(slow); } };

/** Any UTF-16 code unit: NUL, lone surrogates, halves of pairs in either order. */
const codeUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 300 });
/** Any code point of any plane (astral ones as surrogate pairs). */
const codePoints = fc.string({ unit: 'binary', maxLength: 300 });
const special = fc.constantFrom('', '\0', 'a\0b', '\0\0\0', '\uD800', 'x\uDFFF', '\uDC00\uD800', '😀\0😀', 'oryx:s:"x"', 'oryx:s:', 'oryx:b:', '\u{10FFFF}\uFFFF\uFFFE');
const anyString = fc.oneof(codeUnits, codePoints, special);
/** The same string repeated to about 1 MB, NULs and astral characters included. */
const LONG = 'a\0b\uD800😀\u{10FFFF}é\n'.repeat(100_000);

/** Each run is user → assistant(tool call) → tool → assistant; the runs must come one after the other. */
function assertExchangesNotInterleaved(stored: StoredMessage[], labels: string[]): void {
  assert.equal(stored.map((m) => m.seq), stored.map((_, i) => i + 1));
  assert.is(stored.length, labels.length * 4);
  const seen: string[] = [];
  for (let i = 0; i < stored.length; i += 4) {
    const block = stored.slice(i, i + 4).map((m) => m.message);
    const label = block[0]!.content.replace('go ', '');
    assert.equal(block.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant'], `block ${i / 4} is one whole exchange`);
    assert.is(block[3]!.content, `done ${label}`);
    seen.push(label);
  }
  assert.equal(seen.sort(), [...labels].sort());
}

/** Every tool result follows the assistant message that called it; seq runs 1..n without gaps. */
export function assertConsistent(stored: StoredMessage[]): void {
  assert.equal(stored.map((m) => m.seq), stored.map((_, i) => i + 1), 'seq is contiguous');
  const called = new Set<string>();
  for (const { message } of stored) {
    if (message.role === 'assistant') for (const c of message.toolCalls ?? []) called.add(c.id);
    if (message.role === 'tool') assert.ok(called.has(message.toolCallId), `tool result ${message.toolCallId} has its call before it`);
  }
}

/** Registers the contract's tests for `engine` (the caller runs `test.run()`). */
export function storeContract(engine: StoreEngine): void {
  const it = (name: string, fn: (p: EngineProject) => Promise<void>) => test(`[${engine.name}] ${name}`, async () => {
    const p = await engine.project();
    try { await fn(p); } finally { await p.cleanup(); }
  });
  const withStore = (name: string, fn: (s: OpenedStore) => Promise<void>, options?: SqliteSessionStoreOptions) => it(name, async (p) => {
    const s = await p.open(options);
    try { await fn(s); } finally { await s.close(); }
  });

  withStore('append and read back: one row per message, exact shape, seq in order', async (s) => {
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
  });

  it('parts and provider metadata round-trip exactly, across a restart (images, reasoning with signatures, call and message metadata)', async (p) => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const msgs: Message[] = [
      { role: 'user', content: 'what is this?', parts: [{ type: 'image', mediaType: 'image/png', data: png, name: 'dot.png' }] },
      {
        role: 'assistant', content: '',
        parts: [
          { type: 'reasoning', text: 'A signed thought.', signature: 'EqQBCkYIARgCIkD', metadata: { anthropic: { block: 'thinking' } } },
          { type: 'reasoning', text: '', redacted: 'EmwKAhgBEgy3va3p', metadata: { anthropic: { block: 'redacted_thinking' } } },
          { type: 'reasoning', text: 'The user asks…', metadata: { deepseek: { field: 'reasoning_content' } } },
        ],
        toolCalls: [{ id: 'fc1', name: 'look', args: { at: 'dot' }, metadata: { gemini: { extraContent: { google: { thought_signature: 'CrICAdHt==' } } } } }],
        metadata: { openrouter: { reasoningDetails: [{ type: 'reasoning.text', text: 'x', signature: 's', index: 0 }] } },
      },
      { role: 'tool', toolCallId: 'fc1', name: 'look', content: 'a screenshot:', parts: [{ type: 'image', mediaType: 'image/png', data: png }] },
      { role: 'assistant', content: 'A red dot.' },
    ];
    const first = await p.open();
    let id: string;
    try {
      id = (await first.store.create({ agent: 'assistant' })).id;
      await first.store.append(id, msgs);
    } finally { await first.close(); }
    const again = await p.open();
    try {
      assert.equal((await again.store.messages(id)).map((m) => m.message), msgs);
      assert.equal((await again.store.history(id, 5)).map((m) => m.message), msgs, 'the prompt history carries them too');
    } finally { await again.close(); }
  });

  withStore('history(id, N) starts at the N-th last user message', async (s) => {
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
  });

  withStore('list is newest first, paged by cursor, filtered by agent; an id prefix resolves; delete removes messages', async (s) => {
    for (let i = 0; i < 5; i++) {
      const info = await s.store.create({ agent: i % 2 ? 'b' : 'a', id: `s${i}-${'abcdef'[i]}` });
      await s.store.append(info.id, [{ role: 'user', content: `m${i}` }]);
      await sleep(2);
    }
    const page1 = await s.store.list({ limit: 2 });
    assert.equal(page1.items.map((i) => i.id), ['s4-e', 's3-d']);
    const page2 = await s.store.list({ limit: 2, cursor: page1.nextCursor });
    assert.equal(page2.items.map((i) => i.id), ['s2-c', 's1-b']);
    const page3 = await s.store.list({ limit: 2, cursor: page2.nextCursor });
    assert.equal(page3.items.map((i) => i.id), ['s0-a']);
    assert.is(page3.nextCursor, undefined);
    assert.equal((await s.store.list({ agent: 'b' })).items.map((i) => i.id), ['s3-d', 's1-b']);
    assert.is((await rejection(() => s.store.list({ cursor: 'garbage' }))).code, 'ORYX_E_SQLITE_BAD_CURSOR');
    assert.equal((await s.store.withPrefix('s2-', 5)).map((i) => i.id), ['s2-c']);
    await s.store.create({ agent: 'a', id: 'prefix-one' });
    assert.equal((await s.store.withPrefix('prefix-o', 5)).map((i) => i.id), ['prefix-one'], 'a unique prefix');
    await s.store.create({ agent: 'a', id: 'prefix-two' });
    assert.equal((await s.store.withPrefix('prefix-', 5)).map((i) => i.id), ['prefix-one', 'prefix-two'], 'an ambiguous prefix');
    assert.equal((await s.store.withPrefix('prefix-', 1)).map((i) => i.id), ['prefix-one'], 'limited');

    assert.is(await s.store.delete('s2-c'), true);
    assert.is(await s.store.delete('s2-c'), false);
    assert.is(await s.store.get('s2-c'), undefined);
    const [{ n }] = await s.db.query<{ n: number }>("SELECT COUNT(*) AS n FROM messages WHERE session_id = 's2-c'");
    assert.is(n, 0);
  });

  withStore('a sub-agent\'s session names its parent; list({parentSessionId}) finds the children, newest first', async (s) => {
    const parent = await s.store.create({ agent: 'lead' });
    const first = await s.store.create({ agent: 'researcher', parentSessionId: parent.id });
    await sleep(2);
    const second = await s.store.create({ agent: 'writer', parentSessionId: parent.id });
    await s.store.create({ agent: 'researcher', parentSessionId: first.id });
    assert.is(second.parentSessionId, parent.id);
    assert.is((await s.store.get(first.id))?.parentSessionId, parent.id);
    assert.is((await s.store.get(parent.id))?.parentSessionId, undefined);
    assert.equal((await s.store.list({ parentSessionId: parent.id })).items.map((i) => i.id), [second.id, first.id]);
    assert.equal((await s.store.list({ parentSessionId: parent.id, agent: 'writer' })).items.map((i) => i.id), [second.id]);
    assert.is((await s.store.list()).items.length, 4, 'without the filter every session is listed');
    // A child outlives its deleted parent, still naming where it came from.
    await s.store.delete(parent.id);
    assert.is((await s.store.get(first.id))?.parentSessionId, parent.id);
  });

  withStore('user errors carry stable codes: duplicate id, append to a missing session', async (s) => {
    await s.store.create({ agent: 'a', id: 'fixed' });
    assert.is((await rejection(() => s.store.create({ agent: 'a', id: 'fixed' }))).code, 'ORYX_E_SQLITE_SESSION_EXISTS');
    assert.is((await rejection(() => s.store.append('ghost', [{ role: 'user', content: 'x' }]))).code, 'ORYX_E_SQLITE_SESSION_NOT_FOUND');
    const [{ n }] = await s.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM messages');
    assert.is(n, 0);
  });

  withStore('an append that keeps conflicting fails clearly and writes nothing', async (s) => {
    const { id } = await s.store.create({ agent: 'a' });
    await s.store.append(id, [{ role: 'user', content: 'first' }]);
    for (const sql of engine.sql.stealPositions) await s.db.execute(sql);
    const error = await rejection(() => s.store.append(id, [{ role: 'assistant', content: 'ok' }, { role: 'user', content: 'second' }]));
    assert.is(error.code, 'ORYX_E_SQLITE_APPEND_CONFLICT');
    assert.match(error.message, '3 times');
    assert.equal((await s.store.messages(id)).map((m) => m.message.content), ['first'], 'the half of the append before the conflict was rolled back');
    assert.is((await s.store.get(id))?.messageCount, 1);
  }, { appendRetries: 2 });

  withStore('database service: named and positional params, booleans, blobs, rollback, joined transactions, wrapped errors', async (s) => {
    const { db } = s;
    await db.execute(engine.sql.table);
    assert.is((await db.execute('INSERT INTO t (a, b, c, d) VALUES (:a, :b, :c, :d)', { a: 1, b: 'x', c: new Uint8Array([1, 0, 2]), d: true })).rowsAffected, 1);
    await db.execute('INSERT INTO t (a, b, d) VALUES (?, ?, ?)', [2, "y'?", 7]);
    const rows = await db.query<{ a: number; b: string; c: Uint8Array | null; d: number }>("SELECT a, b, c, d FROM t WHERE b <> '?' ORDER BY a LIMIT ?", [10]);
    assert.equal(rows.map((x) => [x.a, x.b, x.d]), [[1, 'x', 1], [2, "y'?", 7]]);
    assert.ok(rows[0]!.c instanceof Uint8Array);
    assert.equal([...rows[0]!.c!], [1, 0, 2]);

    const boom = await rejection(() => db.transaction(async (tx) => {
      await tx.execute('INSERT INTO t (a) VALUES (3)');
      throw new Error('boom');
    }));
    assert.is(boom.message, 'boom', 'the callback\'s own error comes out as it was');
    assert.is((await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM t'))[0]!.n, 2, 'the failed transaction left nothing');

    const inner = await db.transaction(async (tx) => {
      await tx.execute('INSERT INTO t (a) VALUES (4)');
      // the outer handle inside a transaction joins it instead of deadlocking
      return (await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM t'))[0]!.n;
    });
    assert.is(inner, 3);

    let leaked: { execute(sql: string): Promise<unknown> } | undefined;
    let later: Promise<unknown> | undefined;
    await db.transaction(async (tx) => {
      leaked = tx;
      later = new Promise((resolve, reject) => setTimeout(() => db.execute('INSERT INTO t (a) VALUES (5)').then(resolve, reject), 5));
    });
    await later;
    assert.is((await db.query<{ n: number }>('SELECT COUNT(*) AS n FROM t'))[0]!.n, 4, 'work a transaction started but ran later goes through the normal path');
    assert.is((await rejection(() => leaked!.execute('SELECT 1'))).code, engine.codes.closed, 'a tx handle kept past its end says so');

    const bad = await rejection(() => db.query('SELECT * FROM no_such_table'));
    assert.is(bad.code, engine.codes.query);
    assert.match(bad.message, 'no_such_table');
    assert.match(bad.message, 'SELECT * FROM no_such_table');
  });

  withStore('appends run concurrently in one process stay whole and contiguous', async (s) => {
    const { id } = await s.store.create({ agent: 'a' });
    await Promise.all(Array.from({ length: 20 }, (_, i) => s.store.append(id, [
      { role: 'user', content: `u${i}` }, { role: 'assistant', content: `a${i}` },
    ])));
    const stored = await s.store.messages(id);
    assert.equal(stored.map((m) => m.seq), Array.from({ length: 40 }, (_, i) => i + 1));
    for (let i = 0; i < 40; i += 2) assert.is(stored[i + 1]!.message.content, stored[i]!.message.content.replace('u', 'a'));
  });

  it('after close the database says so with a code', async (p) => {
    const s = await p.open();
    await s.close();
    assert.is((await rejection(() => s.db.query('SELECT 1'))).code, engine.codes.closed);
  });

  withStore('lock: waits for the holder, honours an abort signal, times out with the holder named, and is renewed while held', async (s) => {
    const { id } = await s.store.create({ agent: 'a' });
    const release = await s.store.lock(id);
    const controller = new AbortController();
    const waiting = rejection(() => s.store.lock(id, controller.signal));
    controller.abort();
    assert.is((await waiting).code, 'ORYX_E_RUN_ABORTED');
    const busy = await rejection(() => s.store.lock(id));
    assert.is(busy.code, 'ORYX_E_SQLITE_SESSION_BUSY');
    assert.match(busy.message, `process ${process.pid}`);
    await sleep(1500);
    const [lease] = await s.db.query<{ expires_at: number }>('SELECT expires_at FROM session_leases WHERE session_id = ?', [id]);
    assert.ok(lease && Number(lease.expires_at) > Date.now(), 'the heartbeat renewed the lease past its first lifetime');
    const next = s.store.lock(id);
    await release();
    await (await next)();
    assert.equal(await s.db.query('SELECT * FROM session_leases'), []);
  }, { leaseMs: 1000, lockTimeoutMs: 300 });

  withStore('an expired lease (a hung holder on another host) is taken over', async (s) => {
    const { id } = await s.store.create({ agent: 'a' });
    await s.db.execute('INSERT INTO session_leases (session_id, owner, host, pid, acquired_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
      [id, 'elsewhere:1:x', 'some-other-host', 1, Date.now(), Date.now() + 200]);
    const release = await s.store.lock(id);
    const [lease] = await s.db.query<{ pid: number }>('SELECT pid FROM session_leases WHERE session_id = ?', [id]);
    assert.is(lease?.pid, process.pid);
    await release();
  }, { leaseMs: 1000, lockTimeoutMs: 5000 });

  withStore('any string round-trips through every message column, the title and another plugin\'s text column (property)', async (s) => {
    await s.db.execute(engine.sql.otherTable);
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
      assert.equal((await s.store.messages(id)).map((m) => m.message), messages);
      assert.equal((await s.store.history(id, 1)).map((m) => m.message), messages);
      assert.is((await s.store.get(id))?.title, content);
      await s.db.execute("INSERT INTO other_plugin (kind, v) VALUES ('t', ?)", [content]);
      const found = await s.db.query<{ v: unknown }>('SELECT v FROM other_plugin WHERE v = ?', [content]);
      assert.ok(found.length >= 1 && found.every((r) => r.v === content), 'v = ? finds it, exactly as written');
    }), { numRuns: engine.propertyRuns });
    const { id } = await s.store.create({ agent: 'a' });
    await s.store.append(id, [{ role: 'user', content: LONG }, { role: 'assistant', content: `${LONG}\uDBFF` }]);
    const back = await s.store.messages(id);
    assert.ok(back[0]!.message.content === LONG, 'a 1 MB message with NULs and lone surrogates');
    assert.ok(back[1]!.message.content === `${LONG}\uDBFF`, 'the long answer ending in a lone surrogate');
  });

  withStore('a damaged row names session, seq and column; scan marks it; repair quarantines it, keeping its text', async (s) => {
    const { id } = await s.store.create({ agent: 'a' });
    await s.store.append(id, [
      { role: 'user', content: 'ping' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'x' } }] },
      { role: 'tool', toolCallId: 'c1', name: 'echo', content: 'x' },
      { role: 'assistant', content: 'pong' },
    ]);
    await s.db.execute('UPDATE messages SET tool_calls = ? WHERE session_id = ? AND seq = 2', ['[{"id":"c1","name":"echo"', id]);
    const e = await rejection(() => s.store.messages(id));
    assert.is(e.code, 'ORYX_E_SQLITE_CORRUPT_ROW');
    assert.equal(e.data, { sessionId: id, seq: 2, column: 'tool_calls' });
    assert.is((await rejection(() => s.store.history(id, 5))).code, 'ORYX_E_SQLITE_CORRUPT_ROW');
    const scanned = await s.store.scan(id);
    assert.equal(scanned.map((m) => ('damaged' in m ? `${m.seq}:damaged` : `${m.seq}:${m.message.role}`)), ['1:user', '2:damaged', '3:tool', '4:assistant']);
    const repaired = await s.store.repair(id);
    assert.equal(repaired.quarantined.map((q) => q.seq), [2]);
    assert.is(repaired.kept, 3);
    assert.equal((await s.store.messages(id)).map((m) => m.seq), [1, 3, 4]);
    assert.is((await s.store.get(id))?.messageCount, 3);
    const kept = await s.db.query<{ seq: number; tool_calls: string; reason: string }>('SELECT seq, tool_calls, reason FROM messages_quarantine WHERE session_id = ?', [id]);
    assert.equal(kept.map((k) => [Number(k.seq), k.tool_calls]), [[2, '[{"id":"c1","name":"echo"']]);
    assert.match(kept[0]!.reason, 'tool_calls');
  });

  it('two runs on one session at once, through two kernels on one database: serialized by the lease', async (p) => {
    const byLabel = scripted(Array.from({ length: 8 }, () => (request) => {
      const last = request.messages.at(-1)!;
      if (last.role === 'user') return { toolCalls: [{ name: 'slow', args: { label: last.content.replace('go ', '') } }] };
      return { text: `done ${last.content.replace('slow ', '')}` };
    }));
    const k = await testKernel({ plugins: [byLabel, tools, p.plugin()], dir: p.dir });
    // Its own in-process queue and its own connection: only the store's lock orders them.
    const second = await testKernel({ plugins: [byLabel, tools, p.plugin()], dir: p.dir });
    try {
      const session = await k.kernel.service('sessions').create({ agent: 'assistant' });
      const other = second.service;
      const results = await Promise.all([
        k.service.process({ agent: 'assistant', session: session.id, message: 'go A' }),
        other.process({ agent: 'assistant', session: session.id, message: 'go B' }),
        k.service.process({ agent: 'assistant', session: session.id, message: 'go C' }),
      ]);
      assert.equal(results.map((r) => r.answer), ['done A', 'done B', 'done C']);
      assertExchangesNotInterleaved(await k.kernel.service('sessions').messages(session.id), ['A', 'B', 'C']);
      assert.equal(await k.kernel.service('database').query('SELECT * FROM session_leases'), [], 'every lease released');
    } finally {
      await second.close({ keep: true });
      await k.close({ keep: true });
    }
  });

  it('two processes on one session at once: both exchanges stored, one after the other', async (p) => {
    await writeAgents(path.join(p.dir, '.oryxos'), { assistant: { tools: ['*'] } });
    const s = await p.open();
    const { id } = await s.store.create({ agent: 'assistant' });
    await s.close();
    const workers = [new Worker(['exchange', p.dir, id, 'P'], p.env), new Worker(['exchange', p.dir, id, 'Q'], p.env)];
    try {
      const results = await Promise.all(workers.map(async (w) => JSON.parse((await w.waitFor('RESULT ')).slice(7))));
      assert.equal(results.map((r) => r.answer).sort(), ['done P', 'done Q']);
      // the second run saw the whole first exchange: system + 4 + its own message
      assert.equal(results.map((r) => r.firstPrompt).sort(), [2, 6]);
      const check = await p.open();
      try { assertExchangesNotInterleaved(await check.store.messages(id), ['P', 'Q']); } finally { await check.close(); }
    } finally {
      await Promise.all(workers.map((w) => w.kill()));
    }
  });

  it('delete: refused while another process runs the session, naming it; force stops that run first', async (p) => {
    await writeAgents(path.join(p.dir, '.oryxos'), { assistant: { tools: ['*'] } });
    const s = await p.open();
    const { id } = await s.store.create({ agent: 'assistant' });
    const worker = new Worker(['hold-run', p.dir, id], p.env);
    try {
      await worker.waitFor('RUNNING');
      const e = await rejection(() => s.store.delete(id));
      assert.is(e.code, 'ORYX_E_SQLITE_SESSION_BUSY');
      assert.match(e.message, `process ${worker.child.pid}`);
      assert.match(e.hint, '--force');
      assert.ok(await s.store.get(id), 'nothing was deleted');
      assert.is(await s.store.delete(id, { force: true }), true);
      assert.is(JSON.parse((await worker.waitFor('RESULT ')).slice(7)).stopReason, 'aborted', 'the other process aborted its run');
      assert.is(await s.store.get(id), undefined);
      assert.equal(await s.db.query('SELECT * FROM messages WHERE session_id = ?', [id]), [], 'its messages went with it');
      assert.equal(await s.db.query('SELECT * FROM session_leases'), []);
    } finally {
      await s.close();
      await worker.kill();
    }
  });

  it('SIGKILL mid-run: every committed step is there, nothing half-written, the lease is taken over, the session goes on', async (p) => {
    await writeAgents(path.join(p.dir, '.oryxos'), { assistant: { tools: ['*'] } });
    const worker = new Worker(['crash-run', p.dir], p.env);
    try {
      const sessionId = (await worker.waitFor('SESSION ')).slice('SESSION '.length);
      await worker.waitFor('BLOCKED');
      await worker.kill();
      assert.not.ok(worker.lines.includes('UNEXPECTED END'));
      // The lease the dead process held must not make us wait: leaseMs is far above lockTimeoutMs.
      const llm = scripted([{ text: 'resumed' }]);
      const k = await testKernel({ plugins: [llm, p.plugin({ leaseMs: 600_000, lockTimeoutMs: 3000 })], dir: p.dir, agents: { assistant: { tools: [] } } });
      try {
        const store = k.kernel.service('sessions');
        const stored = await store.messages(sessionId);
        assertConsistent(stored);
        assert.equal(stored.map((m) => m.message.role), ['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
        assert.equal((stored[5]!.message as AssistantMessage).toolCalls?.map((c) => c.id), ['c3'], 'the step in flight: its call committed, its result lost');
        const r = await k.service.process({ agent: 'assistant', session: sessionId, message: 'are you there?' });
        assert.is(r.answer, 'resumed');
        // The call had started (its start mark is committed) when the process died: it is not run
        // again, the model is told it may have run, and that result is stored.
        assert.equal(llm.requests[0]!.messages.slice(1)[6], {
          role: 'tool', toolCallId: 'c3', name: 'step', isError: true,
          content: 'Interrupted: this call had started when its process stopped, and its result was never recorded. It may have run, in part or whole; it was not run again. Check its effect before you call it again.',
        });
        assert.equal((await store.messages(sessionId))[6]!.message.role, 'tool', 'the interrupted result is committed before the new message');
        assertConsistent(await store.messages(sessionId));
        assert.ok(k.warnings.some((w) => w.includes('took over the lease')), 'the dead process\'s lease was taken over');
      } finally {
        await k.close({ keep: true });
      }
    } finally {
      await worker.kill();
    }
  });
}

/** The sqlite engine on one libsql driver: a temp project with its database file. */
export function sqliteEngine(driver: 'libsql' | 'client', load: () => Promise<typeof import('../src/index.ts')>): StoreEngine {
  return {
    name: `sqlite/${driver}`,
    async project() {
      const mod = await load();
      const { dir, cleanup } = await tempDir();
      const file = path.join(dir, '.oryxos', 'oryx.db');
      return {
        dir, cleanup, env: {},
        plugin: (options = {}) => mod.default({ ...options, driver }),
        async open(options = {}) {
          const db = await mod.openDatabase({ kind: 'file', path: file }, { driver, busyTimeoutMs: 5000 });
          await mod.enableWal(db);
          await mod.migrate(db);
          const store = new mod.SqliteSessionStore(() => db, options);
          return { db, store, async close() { await store.close(); await db.close(); } };
        },
      };
    },
    sql: {
      table: 'CREATE TABLE t (a INTEGER, b TEXT, c BLOB, d INTEGER)',
      otherTable: 'CREATE TABLE IF NOT EXISTS other_plugin (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, v TEXT)',
      // Another writer taking the same positions, as sqld would report it.
      stealPositions: [`CREATE TRIGGER steal BEFORE INSERT ON messages WHEN NEW.content = 'second'
        BEGIN SELECT RAISE(ABORT, 'UNIQUE constraint failed: messages.session_id, messages.seq'); END`],
    },
    codes: { query: 'ORYX_E_SQLITE_QUERY', closed: 'ORYX_E_SQLITE_CLOSED' },
    propertyRuns: 150,
  };
}
