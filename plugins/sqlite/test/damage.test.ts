// Damaged files and rows, made by writing bytes into real database files: each fault gets its
// own code and hint, one bad row does not lock its session, quick_check names a bad index.
// The CLI tests run the built `oryx` binary (npm test builds first).
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Libsql from 'libsql';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { echoTool, runOryx, scripted, tempProject, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import sqlite, { openDatabase, type SqliteDatabaseService } from '../src/index.ts';
import { sqlFailure } from '../src/driver-errors.ts';
import { DRIVERS, openStore, rejection, tempDir } from './helpers.ts';

/** Overwrites the first occurrence of `find` in the file with `replace` (same length), after a checkpoint. */
async function patchFile(file: string, find: string, replace: string): Promise<void> {
  assert.is(find.length, replace.length);
  const db = new Libsql(file);
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
  const bytes = await readFile(file);
  const at = bytes.indexOf(Buffer.from(find));
  assert.ok(at >= 0, `${find} is in the file`);
  const handle = await open(file, 'r+');
  await handle.write(Buffer.from(replace), 0, replace.length, at);
  await handle.close();
}

/** Writes `bytes` at the start of the b-tree page `rootpage` of the object `name`. */
async function damagePageOf(file: string, name: string, bytes: Buffer): Promise<void> {
  const db = new Libsql(file);
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const { rootpage } = db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').get(name) as { rootpage: number };
  const { page_size } = db.prepare('PRAGMA page_size').get() as { page_size: number };
  db.close();
  const handle = await open(file, 'r+');
  await handle.write(bytes, 0, bytes.length, (rootpage - 1) * page_size);
  await handle.close();
}

async function seedSession(dir: string): Promise<string> {
  const llm = scripted([{ toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'MARK-CALL' } }] }, { text: 'pinged' }]);
  const k = await testKernel({ plugins: [llm, toolsPlugin(echoTool()), sqlite()], dir, agents: { assistant: { tools: ['*'] } } });
  const r = await k.service.process({ agent: 'assistant', message: 'please ping' });
  await k.close({ keep: true });
  return r.sessionId;
}

test('a corrupt tool_calls value: reads name session, seq and column; show marks it; run -s refuses; repair quarantines it', async () => {
  const dir = await tempProject('oryx-sqlite-damage-');
  try {
    await writeFile(path.join(dir, 'oryx.config.ts'), `
import { defineConfig } from '@oryxos/kernel';
import { scripted } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
const seen = (request) => ({ text: 'seen ' + request.messages.filter((m) => m.role !== 'system').length + ' messages' });
export default defineConfig({ plugins: [sqlite(), scripted([seen])] });
`);
    const id = await seedSession(dir);
    const file = path.join(dir, '.oryxos', 'oryx.db');
    await patchFile(file, 'MARK-CALL"}}]', 'MARK-CALL"   ');

    for (const driver of DRIVERS) {
      const s = await openStore(file, driver);
      try {
        const e = await rejection(() => s.store.messages(id));
        assert.is(e.code, 'ORYX_E_SQLITE_CORRUPT_ROW', driver);
        assert.match(e.message, `Message #2 of session "${id}"`);
        assert.match(e.message, 'tool_calls is not valid JSON');
        assert.equal(e.data, { sessionId: id, seq: 2, column: 'tool_calls' });
        assert.match(e.hint, `oryx sessions repair ${id}`);
        assert.is((await rejection(() => s.store.history(id, 5))).code, 'ORYX_E_SQLITE_CORRUPT_ROW');
        const scanned = await s.store.scan(id);
        assert.equal(scanned.map((m) => ('damaged' in m ? `${m.seq}:damaged` : `${m.seq}:${m.message.role}`)), ['1:user', '2:damaged', '3:tool', '4:assistant']);
      } finally {
        await s.close();
      }
    }

    const shown = await runOryx(['sessions', 'show', id], { cwd: dir });
    assert.is(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, '#1 user');
    assert.match(shown.stdout, '#2 ✗ UNREADABLE');
    assert.match(shown.stdout, '#3 tool echo [c1] ok');
    assert.match(shown.stdout, `oryx sessions repair ${id}`);
    const json = JSON.parse((await runOryx(['sessions', 'show', id, '--json'], { cwd: dir })).stdout);
    assert.is(json.messages[1].damaged.code, 'ORYX_E_SQLITE_CORRUPT_ROW');
    assert.is(json.messages[1].damaged.column, 'tool_calls');

    const refused = await runOryx(['run', '-s', id, 'go on', '--json'], { cwd: dir });
    assert.is(refused.code, 1);
    const error = JSON.parse(refused.stdout).error;
    assert.is(error.code, 'ORYX_E_SQLITE_CORRUPT_ROW');
    assert.match(error.hint, `oryx sessions repair ${id}`);

    const repaired = JSON.parse((await runOryx(['sessions', 'repair', id, '--json'], { cwd: dir })).stdout);
    assert.equal(repaired.quarantined.map((q: { seq: number }) => q.seq), [2]);
    assert.match(repaired.quarantined[0].reason, 'tool_calls');
    const again = JSON.parse((await runOryx(['sessions', 'repair', id, '--json'], { cwd: dir })).stdout);
    assert.equal(again.quarantined, [], 'nothing left to repair');

    const resumed = await runOryx(['run', '-s', id, 'and now?', '--json'], { cwd: dir });
    assert.is(resumed.code, 0, resumed.stdout + resumed.stderr);
    // user, (the call's result is dropped with its call), answer, this one: the refused run wrote nothing
    assert.is(JSON.parse(resumed.stdout).answer, 'seen 3 messages');

    const raw = new Libsql(file);
    const kept = raw.prepare('SELECT session_id, seq, role, tool_calls, reason FROM messages_quarantine').all() as Record<string, string>[];
    raw.close();
    assert.is(kept.length, 1);
    assert.is(kept[0]!.session_id, id);
    assert.is(kept[0]!.seq, 2 as unknown as string);
    assert.is(kept[0]!.tool_calls, '[{"id":"c1","name":"echo","args":{"text":"MARK-CALL"   ', 'the damaged bytes are kept as they were');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('check(): quick_check is ok on a sound file and names the index whose page was overwritten', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    await seedSession(dir);
    const file = path.join(dir, '.oryxos', 'oryx.db');
    let k = await testKernel({ plugins: [scripted([]), sqlite()], dir });
    const sound = await (k.kernel.service('database') as SqliteDatabaseService).check();
    await k.close({ keep: true });
    assert.equal(sound, { ok: true, check: 'quick_check', problems: [] });

    await damagePageOf(file, 'sessions_by_updated', Buffer.alloc(64, 0xee));
    for (const driver of DRIVERS) {
      k = await testKernel({ plugins: [scripted([]), sqlite({ driver })], dir });
      try {
        const report = await (k.kernel.service('database') as SqliteDatabaseService).check();
        assert.is(report.ok, false, driver);
        assert.ok(report.problems.some((p) => p.kind === 'index' && p.name === 'sessions_by_updated'), JSON.stringify(report.problems));
        // a read through the damaged index fails with its own code and hint
        const e = await rejection(() => k.kernel.service('sessions').list());
        assert.is(e.code, 'ORYX_E_SQLITE_CORRUPT');
        assert.match(e.hint, 'oryx db repair');
      } finally {
        await k.close({ keep: true });
      }
    }
  } finally {
    await cleanup();
  }
});

test('a damaged header is named as such (not "not a database"): the start refuses with ORYX_E_SQLITE_HEADER_DAMAGED, and oryx doctor says so', async () => {
  const dir = await tempProject('oryx-sqlite-header-');
  try {
    await writeFile(path.join(dir, 'oryx.config.ts'), `import { defineConfig } from '@oryxos/kernel';
import sqlite from '@oryxos/plugin-sqlite';
export default defineConfig({ plugins: [sqlite()] });
`);
    await seedSession(dir);
    const file = path.join(dir, '.oryxos', 'oryx.db');
    const db = new Libsql(file);
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    db.close();
    const handle = await open(file, 'r+');
    await handle.write(Buffer.alloc(32, 0x5a), 0, 32, 0);
    await handle.close();
    const e = await rejection(() => testKernel({ plugins: [scripted([]), sqlite()], dir }));
    assert.is(e.code, 'ORYX_E_SQLITE_HEADER_DAMAGED');
    assert.match(e.message, 'The header of the database');
    assert.match(e.hint, 'restore the file from a backup');
    const doctor = JSON.parse((await runOryx(['doctor', '--json'], { cwd: dir })).stdout).items as { check: string; status: string; code?: string; fix?: string }[];
    const line = doctor.find((c) => c.check === 'database');
    assert.is(line?.code, 'ORYX_E_SQLITE_HEADER_DAMAGED', JSON.stringify(doctor));
    assert.match(line!.fix!, 'backup');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('SQLite result codes get their own error codes and hints: not a database, corrupt, cannot open, full, read-only', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    for (const driver of DRIVERS) {
      const garbage = path.join(dir, `garbage-${driver}.db`);
      await writeFile(garbage, Buffer.alloc(8192, 7));
      let e = await rejection(() => openDatabase({ kind: 'file', path: garbage }, { driver, busyTimeoutMs: 100 }));
      assert.is(e.code, 'ORYX_E_SQLITE_NOT_A_DATABASE', driver);
      assert.match(e.message, garbage);
      assert.match(e.hint, 'not a SQLite database');

      const folder = path.join(dir, `folder-${driver}.db`);
      await mkdir(folder);
      e = await rejection(() => openDatabase({ kind: 'file', path: folder }, { driver, busyTimeoutMs: 100 }));
      assert.is(e.code, 'ORYX_E_SQLITE_CANTOPEN', driver);
      assert.match(e.hint, 'not a folder');

      const s = await openStore(path.join(dir, `limits-${driver}.db`), driver);
      try {
        const { id } = await s.store.create({ agent: 'a' });
        await s.db.execute('PRAGMA max_page_count = 40');
        e = await rejection(() => s.store.append(id, [{ role: 'user', content: 'x'.repeat(500_000) }]));
        assert.is(e.code, 'ORYX_E_SQLITE_FULL', driver);
        assert.match(e.hint, 'free space');
        assert.equal(await s.store.messages(id), [], 'the failed append wrote nothing');
        await s.db.execute('PRAGMA query_only = 1');
        e = await rejection(() => s.store.append(id, [{ role: 'user', content: 'hi' }]));
        assert.is(e.code, 'ORYX_E_SQLITE_READONLY', driver);
        assert.match(e.hint, 'writable');
        await s.db.execute('PRAGMA query_only = 0');
      } finally {
        await s.close();
      }

      const damaged = path.join(dir, `damaged-${driver}.db`);
      const d = await openStore(damaged, driver);
      const { id } = await d.store.create({ agent: 'a' });
      await d.store.append(id, [{ role: 'user', content: 'y'.repeat(20_000) }]);
      await d.close();
      await damagePageOf(damaged, 'messages', Buffer.alloc(100, 0xab));
      const reopened = await openDatabase({ kind: 'file', path: damaged }, { driver, busyTimeoutMs: 100 });
      try {
        e = await rejection(() => reopened.query('SELECT content FROM messages'));
        assert.is(e.code, 'ORYX_E_SQLITE_CORRUPT', driver);
        assert.is(e.data.sqliteCode.startsWith('SQLITE_CORRUPT'), true);
      } finally {
        await reopened.close();
      }
    }
  } finally {
    await cleanup();
  }
});

test('a disk I/O error (which this machine cannot cause on demand) maps by its extended code, from either driver shape', () => {
  const embedded = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_SHORT_READ', rawCode: 522 });
  const client = Object.assign(new Error('SQLITE_IOERR: disk I/O error'), { code: 'SQLITE_IOERR', extendedCode: 'SQLITE_IOERR_FSYNC', rawCode: 1034 });
  const numeric = Object.assign(new Error('disk I/O error'), { code: '', rawCode: 266 });
  for (const [error, sqliteCode] of [[embedded, 'SQLITE_IOERR_SHORT_READ'], [client, 'SQLITE_IOERR_FSYNC'], [numeric, 'SQLITE_IOERR']] as const) {
    const e = sqlFailure(error, 'SELECT 1') as any;
    assert.is(e.code, 'ORYX_E_SQLITE_IO');
    assert.is(e.data.sqliteCode, sqliteCode);
    assert.match(e.message, `disk I/O error (${sqliteCode}) in: SELECT 1`);
    assert.match(e.hint, 'check the disk');
  }
  assert.is((sqlFailure(Object.assign(new Error('x'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }), 'INSERT') as any).code, 'ORYX_E_SQLITE_QUERY');
});

test.run();
