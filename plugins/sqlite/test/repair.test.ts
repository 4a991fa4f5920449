// Damage named precisely and repaired: pages of real database files overwritten on purpose;
// `oryx doctor` says which index or table and the command that repairs it; `oryx db repair`
// rebuilds into a fresh file (SQLite cannot REINDEX a damaged b-tree in place), keeps the
// damaged file, and loses no row of an intact table. The CLI parts run the built `oryx`.
import { existsSync } from 'node:fs';
import { open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Libsql from 'libsql';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { echoTool, runOryx, scripted, tempProject, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import sqlite, { repairDatabase } from '../src/index.ts';
import { openStore, rejection } from './helpers.ts';

const CONFIG = `import { defineConfig } from '@oryxos/kernel';
import sqlite from '@oryxos/plugin-sqlite';
export default defineConfig({ plugins: [sqlite()] });
`;

/** A project whose database holds a few runs: sessions, messages, run records. */
async function seeded(runs: number): Promise<{ dir: string; file: string }> {
  const dir = await tempProject('oryx-sqlite-repair-');
  await writeFile(path.join(dir, 'oryx.config.ts'), CONFIG);
  const llm = scripted(Array.from({ length: runs }, (_, i) => [{ toolCalls: [{ id: `c${i}`, name: 'echo', args: { text: `run ${i} ${'p'.repeat(i % 50)}` } }] }, { text: `done ${i}` }]).flat());
  const k = await testKernel({ plugins: [llm, toolsPlugin(echoTool()), sqlite()], dir, agents: { assistant: { tools: ['*'] } } });
  for (let i = 0; i < runs; i++) await k.service.process({ agent: 'assistant', message: `please echo ${i}` });
  await k.close({ keep: true });
  return { dir, file: path.join(dir, '.oryxos', 'oryx.db') };
}

/** Every row of every table (by its key order), as the raw driver reads it. */
function contents(file: string): Record<string, string[]> {
  const db = new Libsql(file);
  try {
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
    return Object.fromEntries(tables.map((t) => [t, (db.prepare(`SELECT * FROM "${t}" NOT INDEXED`).all() as unknown[]).map((row) => JSON.stringify(row)).sort()]));
  } finally {
    db.close();
  }
}

/** Overwrites the start of page `page` (1-based) with `bytes`, after a checkpoint. */
async function damagePage(file: string, page: number, bytes: Buffer): Promise<void> {
  const db = new Libsql(file);
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const { page_size } = db.prepare('PRAGMA page_size').get() as { page_size: number };
  db.close();
  const handle = await open(file, 'r+');
  await handle.write(bytes, 0, bytes.length, (page - 1) * page_size);
  await handle.close();
}

function pagesOf(file: string, name: string, type: 'leaf' | 'any' = 'any'): number[] {
  const db = new Libsql(file);
  try {
    return (db.prepare(`SELECT pageno FROM dbstat WHERE name = ? ${type === 'leaf' ? "AND pagetype = 'leaf'" : ''} ORDER BY pageno`).all(name) as { pageno: number }[]).map((r) => r.pageno);
  } finally {
    db.close();
  }
}

const json = (r: { stdout: string }) => JSON.parse(r.stdout);

test('a damaged index: oryx doctor names it and the repair; oryx db repair rebuilds it in a fresh file, keeps the damaged one, loses no row', async () => {
  const { dir, file } = await seeded(12);
  const before = contents(file);
  assert.ok(before.messages!.length >= 48 && before.runs!.length === 12);
  const [root] = pagesOf(file, 'runs_by_session');
  await damagePage(file, root!, Buffer.alloc(64, 0xee));

  const failing = await runOryx(['sessions', '--json'], { cwd: dir });
  assert.is(failing.code, 0, `a read that does not need the damaged index still works: ${failing.stdout}`);
  const doctor = json(await runOryx(['doctor', '--json'], { cwd: dir })).items as { check: string; status: string; detail: string; fix?: string }[];
  const integrity = doctor.find((c) => c.check === 'database integrity')!;
  assert.is(integrity.status, 'fail');
  assert.match(integrity.detail, 'quick_check found damage in index runs_by_session');
  assert.match(integrity.fix!, '`oryx db repair (rebuilds runs_by_session from their tables, keeping the damaged file)`');

  const repaired = await runOryx(['db', 'repair', '--json'], { cwd: dir });
  assert.is(repaired.code, 0, repaired.stderr + repaired.stdout);
  const report = json(repaired);
  assert.ok(report.problems.some((p: { kind: string; name?: string }) => p.kind === 'index' && p.name === 'runs_by_session'), JSON.stringify(report.problems));
  assert.ok(report.indexes.includes('runs_by_session'));
  assert.not.ok(report.tables.some((t: { unreadable?: boolean }) => t.unreadable), 'every table was read whole');
  assert.ok(existsSync(report.kept), 'the damaged file is kept');
  assert.equal(contents(file), before, 'every row of every table, as it was');
  assert.equal(contents(report.kept), before, 'and the damaged file still holds them too');
  const raw = new Libsql(file);
  try {
    assert.equal(raw.prepare('PRAGMA integrity_check').all(), [{ integrity_check: 'ok' }]);
  } finally {
    raw.close();
  }
  const after = json(await runOryx(['doctor', '--json'], { cwd: dir })).items as { check: string; status: string }[];
  assert.is(after.find((c) => c.check === 'database integrity')!.status, 'ok');
  const again = json(await runOryx(['db', 'repair', '--json'], { cwd: dir }));
  assert.equal([again.problems, again.kept], [[], undefined], 'nothing left to repair, nothing changed');
  // The repaired file starts (its high-water mark was renewed) and goes on.
  const k = await testKernel({ plugins: [scripted([{ text: 'fine' }]), sqlite()], dir });
  try {
    assert.is((await k.service.process({ agent: 'assistant', message: 'still there?' })).answer, 'fine');
  } finally {
    await k.close({ keep: true });
  }
});

test('a damaged table page: the rows of the pages around it are recovered from both ends, the table says some were lost, every other table is whole', async () => {
  const { dir, file } = await seeded(60);
  const before = contents(file);
  const leaves = pagesOf(file, 'messages', 'leaf');
  assert.ok(leaves.length >= 5, `${leaves.length} leaf pages`);
  await damagePage(file, leaves[Math.floor(leaves.length / 2)]!, Buffer.alloc(64, 0xab));
  const report = await repairDatabase(file);
  const messages = report.tables.find((t) => t.table === 'messages')!;
  assert.is(messages.unreadable, true);
  const after = contents(file);
  for (const table of Object.keys(before)) {
    if (table === 'messages') continue;
    assert.equal(after[table], before[table], `${table} is whole`);
  }
  const lost = before.messages!.length - after.messages!.length;
  assert.ok(lost > 0 && lost < before.messages!.length / 3, `${lost} of ${before.messages!.length} messages on the damaged page`);
  assert.ok(after.messages!.every((row) => before.messages!.includes(row)), 'every recovered row as it was');
  const raw = new Libsql(file);
  try {
    const ends = raw.prepare('SELECT MIN(session_id) AS first, MAX(session_id) AS last FROM messages').get() as { first: string; last: string };
    const keys = before.messages!.map((r) => JSON.parse(r as string).session_id as string).sort();
    assert.equal([ends.first, ends.last], [keys[0], keys.at(-1)], 'rows before and after the damage');
    assert.equal(raw.prepare('PRAGMA integrity_check').all(), [{ integrity_check: 'ok' }]);
  } finally {
    raw.close();
  }
  assert.ok(existsSync(report.kept!));
  assert.ok(dir);
});

test('repair refuses while a live process holds a session on the database, changing nothing', async () => {
  const { file } = await seeded(2);
  const [root] = pagesOf(file, 'sessions_by_updated');
  const s = await openStore(file, 'libsql');
  const [session] = (await s.store.list()).items;
  const release = await s.store.lock(session!.id);
  try {
    await damagePage(file, root!, Buffer.alloc(64, 0xee));
    const e = await rejection(() => repairDatabase(file));
    assert.is(e.code, 'ORYX_E_SQLITE_REPAIR');
    assert.match(e.message, `process ${process.pid}`);
    assert.match(e.hint, 'Stop every OryxOS process');
  } finally {
    await release();
    await s.close();
  }
});

test.run();
