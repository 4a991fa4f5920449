// The session store's contract (and the run records'), one suite for every engine: the sqlite
// plugin runs it on both libsql drivers (its store.test.ts), the postgres plugin on PostgreSQL
// (its store.test.ts). Each engine supplies a fresh migrated database per test, the few
// statements that differ, and a module the worker processes load their store from.
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CallStart } from '@oryxos/contracts';
import type { Plugin, Tool } from '@oryxos/kernel';
import type { AssistantMessage, Message } from '@oryxos/provider-spec';
import type { StoredMessage } from '@oryxos/contracts';
import { scripted, testKernel, writeAgents } from '@oryxos/kernel/testing';
import type { SqlRunRecordStore, SqlSessionStore, SqlSessionStoreOptions, StoreDatabase } from '@oryxos/sql-store';
import { Worker } from './child.ts';
import { rejection } from './helpers.ts';

/** A migrated database (the store's tables and the run records') with the stores on it. */
export interface OpenedStore {
  db: StoreDatabase;
  store: SqlSessionStore;
  runs: SqlRunRecordStore;
  close(): Promise<void>;
}

/** What an engine's worker module (ORYX_TEST_STORE_MODULE) exports, for fixtures/worker.mts. */
export interface WorkerEngine {
  /** The engine's store plugin for a kernel whose config root is `dir`. */
  storePlugin(options: { dir: string; leaseMs?: number }): Plugin;
  /** The engine's database of project `dir`, migrated, with a store on it. */
  openStore(dir: string): Promise<{ store: SqlSessionStore; close(): Promise<void> }>;
}

/** A project folder whose store plugin uses this engine's database. */
export interface EngineProject {
  dir: string;
  /** The engine's store plugin on this project's database. */
  plugin(options?: { leaseMs?: number; lockTimeoutMs?: number }): Plugin;
  /** Environment for the worker processes (fixtures/worker.mts): their engine module (ORYX_TEST_STORE_MODULE) and database. */
  env: Record<string, string>;
  open(options?: SqlSessionStoreOptions): Promise<OpenedStore>;
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
  const withStore = (name: string, fn: (s: OpenedStore) => Promise<void>, options?: SqlSessionStoreOptions) => it(name, async (p) => {
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
  });

  withStore('delete takes everything that is the session\'s: messages, marks, tags, run records, and its sub-agents\' sessions to any depth', async (s) => {
    const parent = await s.store.create({ agent: 'lead', tags: ['keep-me-not'] });
    const child = await s.store.create({ agent: 'researcher', parentSessionId: parent.id });
    const grandchild = await s.store.create({ agent: 'reader', parentSessionId: child.id });
    const other = await s.store.create({ agent: 'lead', tags: ['keep-me-not'] });
    for (const id of [parent.id, child.id, grandchild.id, other.id]) {
      await s.store.append(id, [{ role: 'user', content: `hi ${id}` }, { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 't', args: {} }] }]);
      await s.runs.begin({ runId: `run-${id}`, sessionId: id, agent: 'lead', startedAt: new Date().toISOString() });
      await s.store.markStarted(mark({ sessionId: id, runId: `run-${id}` }));
    }
    assert.is(await s.store.delete(parent.id), true);
    for (const gone of [parent.id, child.id, grandchild.id]) {
      assert.is(await s.store.get(gone), undefined, gone);
      assert.equal(await s.store.messages(gone), []);
      assert.equal(await s.store.startedWithoutResult(gone), []);
      assert.is(await s.runs.get(`run-${gone}`), undefined);
    }
    assert.equal((await s.store.list({ tag: 'keep-me-not' })).items.map((i) => i.id), [other.id]);
    assert.is((await s.store.messages(other.id)).length, 2, 'another session is untouched');
    assert.is((await s.store.startedWithoutResult(other.id)).length, 1);
    assert.ok(await s.runs.get(`run-${other.id}`));
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

  it('two runs on one session at once in one process, through two kernels (two run services, each with its own queue): serialized by the lease', async (p) => {
    const byLabel = scripted(Array.from({ length: 8 }, () => (request) => {
      const last = request.messages.at(-1)!;
      if (last.role === 'user') return { toolCalls: [{ name: 'slow', args: { label: last.content.replace('go ', '') } }] };
      return { text: `done ${last.content.replace('slow ', '')}` };
    }));
    const k = await testKernel({ plugins: [byLabel, tools, p.plugin()], dir: p.dir });
    try {
      const session = await k.kernel.service('sessions').create({ agent: 'assistant' });
      // Its own in-process queue: only the store's lock orders the two kernels' runs.
      const other = await testKernel({ plugins: [byLabel, tools, p.plugin()], dir: p.dir });
      const results = await Promise.all([
        k.service.process({ agent: 'assistant', session: session.id, message: 'go A' }),
        other.service.process({ agent: 'assistant', session: session.id, message: 'go B' }),
        k.service.process({ agent: 'assistant', session: session.id, message: 'go C' }),
      ]);
      assert.equal(results.map((r) => r.answer), ['done A', 'done B', 'done C']);
      assertExchangesNotInterleaved(await k.kernel.service('sessions').messages(session.id), ['A', 'B', 'C']);
      await other.close({ keep: true });
      assert.equal(await k.kernel.service('database').query('SELECT * FROM session_leases'), [], 'every lease released');
    } finally {
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
      const before = await p.open();
      let killed;
      try {
        [killed] = await before.runs.list({ sessionId });
        assert.is(killed?.stopReason, 'running', 'the killed run left its row, written when it started');
      } finally {
        await before.close();
      }
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
        // c3 had started (its call mark is in the file) when the process died: it is not run
        // again (at most once), and the model is told it may have run.
        const told = llm.requests[0]!.messages.slice(1)[6] as { role: string; toolCallId: string; content: string; isError: boolean };
        assert.equal([told.role, told.toolCallId, told.isError], ['tool', 'c3', true]);
        assert.match(told.content, /^Interrupted: this call had started when its process stopped.*it was not run again/);
        assertConsistent(await store.messages(sessionId));
        assert.ok(k.warnings.some((w) => w.includes('took over the lease')), 'the dead process\'s lease was taken over');
        const runs = await k.kernel.service('runRecords').list({ sessionId });
        assert.equal(runs.map((r) => r.stopReason), ['final', 'crashed'], 'the next start marked the killed run crashed');
        assert.is(runs[1]!.runId, killed!.runId);
        assert.match(runs[1]!.notice ?? '', `process ${worker.child.pid} on ${hostname()} ended before the run did`);
        assert.ok(k.warnings.some((w) => w.includes(`run ${killed!.runId}`) && w.includes('recorded as crashed')), k.warnings.join('\n'));
      } finally {
        await k.close({ keep: true });
      }
    } finally {
      await worker.kill();
    }
  });


  withStore('findOrCreate: one session per outside conversation, whoever asks first; a taken one cannot be created twice', async (s) => {
    const external = { door: 'telegram', id: 'chat-7' };
    const found = await Promise.all(Array.from({ length: 12 }, (_, i) => s.store.findOrCreate({ agent: 'assistant', external, title: `t${i}` })));
    assert.equal(new Set(found.map((f) => f.id)).size, 1, 'every caller got the same session');
    assert.equal((await s.store.get(found[0]!.id))?.external, external);
    const [{ n }] = await s.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM sessions WHERE external_id = ?', ['chat-7']);
    assert.is(Number(n), 1);
    const email = await s.store.findOrCreate({ agent: 'assistant', external: { door: 'email', id: 'chat-7' } });
    assert.is.not(email.id, found[0]!.id, 'the same id at another door is another conversation');
    await s.store.append(found[0]!.id, [{ role: 'user', content: 'hello' }]);
    assert.is((await s.store.findOrCreate({ agent: 'other', external })).messageCount, 1, 'found again later, with its messages, whatever agent asks');
    const taken = await rejection(() => s.store.create({ agent: 'assistant', external }));
    assert.is(taken.code, 'ORYX_E_SQLITE_SESSION_EXISTS');
    assert.match(taken.message, 'telegram conversation "chat-7"');
    assert.is((await rejection(() => s.store.findOrCreate({ agent: 'a', external: { door: 'web', id: '' } }))).code, 'ORYX_E_STORE_INVALID');
  });

  it('findOrCreate: two processes racing for the same outside conversation get one session', async (p) => {
    const s = await p.open();
    await s.close();
    const workers = ['A', 'B'].map((label) => new Worker(['find-or-create', p.dir, '', label], p.env));
    try {
      await Promise.all(workers.map((w) => w.waitFor('READY')));
      await writeFile(path.join(p.dir, 'GO'), '');
      const ids = (await Promise.all(workers.map(async (w) => JSON.parse((await w.waitFor('FOUND ')).slice(6)) as string[]))).flat();
      assert.is(ids.length, 10);
      assert.equal(new Set(ids).size, 1, `one session for both processes: ${[...new Set(ids)].join(', ')}`);
      const check = await p.open();
      try {
        assert.equal((await check.db.query<{ n: number }>("SELECT COUNT(*) AS n FROM sessions WHERE external_door = 'telegram'")).map((r) => Number(r.n)), [1]);
      } finally {
        await check.close();
      }
    } finally {
      await Promise.all(workers.map((w) => w.kill()));
    }
  });

  withStore('turns counts the user messages, kept by every append and by repair; tags set at creation read back and filter the list', async (s) => {
    const tagged = await s.store.create({ agent: 'a', tags: ['eval:smoke', 'nightly', 'eval:smoke'] });
    const plain = await s.store.create({ agent: 'a' });
    assert.equal(tagged.tags, ['eval:smoke', 'nightly'], 'each tag once');
    assert.is(tagged.turns, 0);
    await s.store.append(tagged.id, [{ role: 'user', content: 'q1' }, { role: 'assistant', content: 'a1' }]);
    await s.store.append(tagged.id, [{ role: 'user', content: 'q2' }]);
    await s.store.append(tagged.id, [{ role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 't', args: {} }] }, { role: 'tool', toolCallId: 'c', name: 't', content: 'r' }]);
    const info = await s.store.get(tagged.id);
    assert.equal([info?.turns, info?.messageCount, info?.tags], [2, 5, ['eval:smoke', 'nightly']]);
    assert.is((await s.store.get(plain.id))?.tags, undefined);
    assert.equal((await s.store.list({ tag: 'nightly' })).items.map((i) => i.id), [tagged.id]);
    assert.equal((await s.store.list({ tag: 'eval:smoke', agent: 'b' })).items, []);
    assert.is((await s.store.list({ tag: 'nightly' })).items[0]!.turns, 2);
    for (const bad of [[''], ['x'.repeat(201)], [5 as unknown as string]]) {
      assert.is((await rejection(() => s.store.create({ agent: 'a', tags: bad }))).code, 'ORYX_E_STORE_INVALID', JSON.stringify(bad));
    }
    await s.db.execute("UPDATE messages SET role = 'nobody' WHERE session_id = ? AND seq = 1", [tagged.id]);
    await s.store.repair(tagged.id);
    assert.equal([(await s.store.get(tagged.id))?.turns, (await s.store.get(tagged.id))?.messageCount], [1, 4], 'repair recounts both');
  });

  withStore('message counts: messages of the model and tools to the newest session leave its row unwritten; every list, get and repair counts them', async (s) => {
    const raw = async (id: string) => (await s.db.query<{ message_count: number; counted_seq: number; updated_at: string }>(
      'SELECT message_count, counted_seq, updated_at FROM sessions WHERE id = ?', [id]))[0]!;
    const a = await s.store.create({ agent: 'a' });
    await s.store.append(a.id, [{ role: 'user', content: 'q' }]);
    const written = await raw(a.id);
    await s.store.append(a.id, [{ role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 't', args: {} }] }]);
    await s.store.append(a.id, [{ role: 'tool', toolCallId: 'c', name: 't', content: 'r' }, { role: 'assistant', content: 'done' }]);
    assert.is((await s.store.get(a.id))?.messageCount, 4);
    if (engine.name.startsWith('sqlite')) assert.equal(await raw(a.id), written, 'the newest session, updated a moment ago: its row untouched');
    else assert.equal([(await raw(a.id)).message_count, (await raw(a.id)).counted_seq], [4, 4], 'PostgreSQL writes the row with every append (its lock)');
    // Another session becomes the newest: appends to the first move its row (and its order) again.
    // (A millisecond apart: at the same time, the first would still be listed first, by its id.)
    await new Promise((resolve) => setTimeout(resolve, 5));
    const b = await s.store.create({ agent: 'a' });
    await s.store.append(b.id, [{ role: 'user', content: 'other' }]);
    await new Promise((resolve) => setTimeout(resolve, 5)); // times are kept to the millisecond
    await s.store.append(a.id, [{ role: 'assistant', content: 'again' }]);
    assert.equal((await s.store.list()).items.map((i) => [i.id, i.messageCount]), [[a.id, 5], [b.id, 1]], 'moved first, counted');
    assert.ok((await raw(a.id)).updated_at > written.updated_at);
    assert.equal((await s.store.withPrefix!(a.id.slice(0, 8), 5)).find((i) => i.id === a.id)?.messageCount, 5);
    await s.store.append(a.id, [{ role: 'assistant', content: 'more' }]);
    await s.db.execute("UPDATE messages SET role = 'nobody' WHERE session_id = ? AND seq = 6", [a.id]);
    await s.store.repair(a.id);
    assert.is((await s.store.get(a.id))?.messageCount, 5, 'repair counts what is left');
    await s.store.append(a.id, [{ role: 'assistant', content: 'after' }]);
    assert.equal([(await s.store.get(a.id))?.messageCount, (await s.store.messages(a.id)).length], [6, 6]);
  });

  withStore('call marks: a started call is listed until its result is stored; an earlier result of a reused id does not answer it; store-wide, runs still going on are left out', async (s) => {
    const { id } = await s.store.create({ agent: 'a' });
    const call = (n: number): Message => ({ role: 'assistant', content: '', toolCalls: [{ id: 'call_0', name: 'http_request', args: { n } }] });
    await s.store.append(id, [{ role: 'user', content: 'post it' }, call(1)]);
    await s.store.markStarted(mark({ sessionId: id, runId: 'r1' }));
    assert.equal((await s.store.startedWithoutResult(id)).map((m) => [m.runId, m.toolCallId, m.tool, m.argsHash]), [['r1', 'call_0', 'http_request', 'hash-1']]);
    const again = await s.store.startedWithoutResult(id);
    assert.ok(again[0]!.startedAt, 'with its start time');
    await s.store.append(id, [{ role: 'tool', toolCallId: 'call_0', name: 'http_request', content: 'ok' }]);
    assert.equal(await s.store.startedWithoutResult(id), [], 'answered');
    const marks = async () => (await s.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM call_marks WHERE session_id = ?', [id]))[0]!.n;
    assert.is(Number(await marks()), 1, 'an answered mark stays until the run ends');
    await s.store.settleMarks(id);
    assert.is(Number(await marks()), 0, 'the end of the run clears it');
    // The next run reuses the id: the result above (before this mark) does not answer it.
    await s.store.append(id, [{ role: 'user', content: 'again' }, call(2)]);
    await s.store.markStarted(mark({ sessionId: id, runId: 'r2', argsHash: 'hash-2' }));
    assert.equal((await s.store.startedWithoutResult(id)).map((m) => [m.runId, m.argsHash]), [['r2', 'hash-2']]);
    await s.store.settleMarks(id);
    assert.is(Number(await marks()), 1, 'an unanswered mark is kept');
    // Durable: another connection sees it.
    assert.equal((await s.store.startedWithoutResult()).map((m) => m.runId), ['r2'], 'store-wide: a run without a record (its process died before writing one)');
    await s.runs.begin({ runId: 'r2', sessionId: id, agent: 'a', startedAt: new Date().toISOString() });
    assert.equal(await s.store.startedWithoutResult(), [], 'store-wide: its run is still going on');
    assert.equal((await s.store.startedWithoutResult(id)).map((m) => m.runId), ['r2'], 'for the session: listed (its caller holds the session)');
    await s.db.execute("UPDATE runs SET stop_reason = 'crashed' WHERE id = 'r2'");
    assert.equal((await s.store.startedWithoutResult()).map((m) => m.runId), ['r2']);
    const bad = await rejection(() => s.store.markStarted(mark({ sessionId: id, runId: 'r3', tool: '' })));
    assert.is(bad.code, 'ORYX_E_STORE_INVALID');
    assert.match(bad.message, 'tool');
  });

  withStore('run records: begin writes a running row, end the final figures (cache tokens, cost, continuation), get reads one; a continued run goes back to running', async (s) => {
    const { id } = await s.store.create({ agent: 'a' });
    const startedAt = new Date(Date.now() - 5000).toISOString();
    await s.runs.begin({ runId: 'run-1', sessionId: id, agent: 'a', startedAt, parentRunId: 'parent-9' });
    const running = await s.runs.get('run-1');
    assert.equal(running, {
      runId: 'run-1', sessionId: id, agent: 'a', parentRunId: 'parent-9', startedAt, stopReason: 'running',
      iterations: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, retries: 0, durationMs: 0,
    });
    const continuation = { provider: 'openai', model: 'gpt-x', user: 'ada', door: 'telegram', suspended: [{ toolCallId: 'c9', tool: 'shell', by: 'approvals', reason: 'asks', data: { approvalId: 'ap1' } }] };
    const ended = {
      runId: 'run-1', sessionId: id, agent: 'a', parentRunId: 'parent-9', startedAt, finishedAt: new Date().toISOString(), stopReason: 'suspended' as const,
      notice: 'waits for approval ap1', iterations: 3, toolCalls: 2, inputTokens: 1200, outputTokens: 80, cacheReadTokens: 1024, cacheWriteTokens: 64,
      costUsd: 0.0123, retries: 1, durationMs: 4999, errorCode: 'ORYX_E_X', continuation,
    };
    await s.runs.end(ended);
    assert.equal(await s.runs.get('run-1'), ended, 'every figure back as written');
    await s.runs.begin({ runId: 'run-1', sessionId: id, agent: 'a', startedAt });
    const continued = await s.runs.get('run-1');
    assert.equal([continued?.stopReason, continued?.finishedAt, continued?.iterations], ['running', undefined, 3], 'running again, its figures so far kept');
    await s.runs.end({ ...ended, stopReason: 'final', continuation: undefined, costUsd: undefined, iterations: 4 });
    const final = await s.runs.get('run-1');
    assert.equal([final?.stopReason, final?.iterations, final?.continuation, final?.costUsd], ['final', 4, undefined, undefined]);
    await s.runs.end({ ...ended, runId: 'run-2' });
    assert.equal((await s.runs.list({ sessionId: id })).map((r) => r.runId).sort(), ['run-1', 'run-2'], 'end without begin writes the row');
    assert.is(await s.runs.get('nope'), undefined);
  });

  withStore('recoverCrashed: a running row whose process is gone, or whose session nobody leases, is crashed; a run that may still be going is left', async (s) => {
    const host = hostname();
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const sessions = await Promise.all(['dead', 'free', 'held', 'mine', 'done'].map((name) => s.store.create({ agent: 'a', id: `s-${name}` })));
    const at = new Date().toISOString();
    const row = (runId: string, sessionId: string, runHost: string, pid: number) => s.db.execute(
      `INSERT INTO runs (id, session_id, agent, started_at, stop_reason, iterations, tool_calls, input_tokens, output_tokens, retries, duration_ms, host, pid)
       VALUES (?, ?, 'a', ?, 'running', 0, 0, 0, 0, 0, 0, ?, ?)`, [runId, sessionId, at, runHost, pid]);
    await row('r-dead', 's-dead', host, dead);            // this host, its process is gone (its lease too, taken below)
    await row('r-free', 's-free', 'elsewhere', 4242);     // another host, nobody holds its session
    await row('r-held', 's-held', 'elsewhere', 4242);     // another host still holding its session: may be running
    await row('r-mine', 's-mine', host, process.pid);     // this process, holding its session
    await s.db.execute('INSERT INTO session_leases (session_id, owner, host, pid, acquired_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
      ['s-dead', `${host}:${dead}:x`, host, dead, Date.now(), Date.now() + 600_000]);
    await s.db.execute('INSERT INTO session_leases (session_id, owner, host, pid, acquired_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
      ['s-held', 'elsewhere:4242:y', 'elsewhere', 4242, Date.now(), Date.now() + 600_000]);
    const release = await s.store.lock('s-mine');
    await s.runs.end({ runId: 'r-done', sessionId: 's-done', agent: 'a', startedAt: at, finishedAt: at, stopReason: 'final', iterations: 1, toolCalls: 0, inputTokens: 1, outputTokens: 1, retries: 0, durationMs: 1 });
    try {
      const crashed = await s.runs.recoverCrashed();
      assert.equal(crashed.map((r) => r.runId).sort(), ['r-dead', 'r-free']);
      assert.ok(crashed.every((r) => r.stopReason === 'crashed' && r.finishedAt === undefined));
      assert.match(crashed.find((r) => r.runId === 'r-dead')!.notice!, `process ${dead} on ${host} ended before the run did`);
      const states = Object.fromEntries((await s.runs.list()).map((r) => [r.runId, r.stopReason]));
      assert.equal(states, { 'r-dead': 'crashed', 'r-free': 'crashed', 'r-held': 'running', 'r-mine': 'running', 'r-done': 'final' });
      assert.equal(await s.runs.recoverCrashed(), [], 'once');
    } finally {
      await release();
    }
    assert.is(sessions.length, 5);
  });
}

/** A call mark with defaults. */
function mark(over: Partial<CallStart> & { sessionId: string; runId: string }): CallStart {
  return { toolCallId: 'call_0', tool: 'http_request', argsHash: 'hash-1', startedAt: new Date().toISOString(), ...over };
}
