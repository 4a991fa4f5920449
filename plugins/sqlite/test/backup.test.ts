// `oryx db backup FILE` while another process writes as fast as it can (fixtures/writer.mts):
// the copy is one consistent moment, opens, passes integrity_check and holds every message the
// writer had committed before the backup began, each exactly as in the database. The built
// `oryx` runs it (npm run build).
import path from 'node:path';
import Libsql from 'libsql';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, scripted, testKernel } from '@oryxos/kernel/testing';
import { Worker } from '../../../kits/sql-store/test/child.ts';
import sqlite, { type SqliteDatabaseService } from '../src/index.ts';
import { rejection, tempDir } from './helpers.ts';

const WRITER = path.join(import.meta.dirname, 'fixtures', 'writer.mts');

type Row = { seq: number; role: string; content: string };
const rows = (file: string): Row[] => {
  const db = new Libsql(file);
  try {
    return db.prepare("SELECT seq, role, content FROM messages WHERE session_id = 'written' ORDER BY seq").all() as Row[];
  } finally {
    db.close();
  }
};

test('oryx db backup while a run writes: the copy opens and holds every message committed before it began, exactly', async () => {
  const { dir, cleanup } = await tempDir();
  const file = path.join(dir, '.oryxos', 'oryx.db');
  const copy = path.join(dir, 'backups', 'oryx-copy.db');
  const writer = new Worker(['write', dir], {}, WRITER);
  try {
    await writer.waitFor((l) => l.startsWith('WROTE ') && Number(l.slice(6)) >= 300);
    const committed = Math.max(...writer.lines.filter((l) => l.startsWith('WROTE ')).map((l) => Number(l.slice(6))));
    const backup = await runOryx(['db', 'backup', copy, '--json'], { cwd: dir });
    assert.is(backup.code, 0, backup.stderr + backup.stdout);
    const report = JSON.parse(backup.stdout);
    assert.is(report.file, copy);
    assert.ok(report.bytes > 0);
    const after = Math.max(...writer.lines.filter((l) => l.startsWith('WROTE ')).map((l) => Number(l.slice(6))));
    assert.ok(after > committed, 'the writer went on writing while the copy was made');
    await writer.kill();

    const raw = new Libsql(copy);
    try {
      assert.equal(raw.prepare('PRAGMA integrity_check').all(), [{ integrity_check: 'ok' }]);
    } finally {
      raw.close();
    }
    const copied = rows(copy);
    const source = rows(file);
    assert.ok(copied.length >= committed, `${copied.length} messages in the copy, ${committed} committed before it began`);
    assert.equal(copied.map((r) => r.seq), copied.map((_, i) => i + 1), 'one moment: no gap');
    assert.equal(copied, source.slice(0, copied.length), 'each as in the database');

    // The copy is a database of its own: a kernel opens it and finds the session.
    const k = await testKernel({ plugins: [scripted([]), sqlite({ url: `file:${copy}` })], dir });
    try {
      assert.is((await k.kernel.service('sessions').get('written'))?.messageCount, copied.length);
    } finally {
      await k.close({ keep: true });
    }

    const twice = await runOryx(['db', 'backup', copy, '--json'], { cwd: dir });
    assert.is(twice.code, 1);
    assert.is(JSON.parse(twice.stdout).error.code, 'ORYX_E_SQLITE_BACKUP');
    assert.match(JSON.parse(twice.stdout).error.message, 'already exists');
  } finally {
    await writer.kill();
    await cleanup();
  }
});

test('backup() of the database service refuses when there is no database file (a read-only command in a project without one)', async () => {
  const k = await testKernel({ plugins: [scripted([]), sqlite()], readOnly: true });
  try {
    const e = await rejection(() => (k.kernel.service('database') as SqliteDatabaseService).backup('/tmp/never.db'));
    assert.is(e.code, 'ORYX_E_SQLITE_BACKUP');
  } finally {
    await k.close();
  }
});

test.run();
