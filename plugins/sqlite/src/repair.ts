import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { pathToFileURL } from 'node:url';
import type { IntegrityProblem } from '@oryxos/contracts';
import { errorMessage, isOryxError } from '@oryxos/provider-spec';
import { processAlive } from '@oryxos/plugin-kit';
import type LibsqlDatabase from 'libsql';
import { sqlFailure } from './driver-errors.ts';
import { sqliteError } from './errors.ts';
import { checkIntegrity } from './integrity.ts';
import { loadLibsql } from './load-libsql.ts';

/** What {@link repairDatabase} did. */
export interface RepairReport {
  file: string;
  /** What the check found before (empty: nothing to repair, nothing was changed). */
  problems: IntegrityProblem[];
  /** Where the damaged file was kept (with its -wal file), when it was replaced. */
  kept?: string;
  /** Each table with the rows it holds now; `unreadable` when some of its pages could not be read (rows between the last readable ones on both sides are lost). */
  tables: { table: string; rows: number; unreadable?: boolean }[];
  /** Indexes built afresh from their tables. */
  indexes: string[];
}

type Raw = LibsqlDatabase.Database;

/**
 * Repairs a damaged database file into a fresh one and puts it in its place, keeping the
 * damaged file beside it (`oryx.db.damaged-<time>`, with its `-wal`). SQLite cannot rebuild a
 * damaged index in place (`REINDEX` and `VACUUM` must first walk the damaged b-tree), so the
 * fresh file is built the way `REINDEX` would build each index: every table's rows are read
 * from the table itself (never through an index) and copied with their keys and rowids, then
 * every index is created from them. A table with damaged pages gives up the rows on those
 * pages only: it is read in key order from the start and from the end, each up to the damage.
 * The fresh file must pass `integrity_check` before it replaces anything. Refused while a live
 * process holds a session lease on it: stop `oryx web` and the schedulers first.
 *
 * @example
 * const report = await repairDatabase('/srv/.oryxos/oryx.db');
 * for (const t of report.tables) console.log(t.table, t.rows, t.unreadable ? 'some rows lost' : '');
 */
export async function repairDatabase(file: string): Promise<RepairReport> {
  const Libsql = loadLibsql();
  const damaged = existsSync(`${file}-wal`) ? `${pathToFileURL(file).href}?mode=ro` : `${pathToFileURL(file).href}?immutable=1`;
  let check: Raw;
  try {
    check = new Libsql(damaged);
  } catch (error) {
    throw sqliteError('ORYX_E_SQLITE_REPAIR', `Cannot open ${file} to repair it: ${errorMessage(error)}`, { cause: error });
  }
  let problems: IntegrityProblem[];
  try {
    // quick_check names a damaged b-tree (integrity_check would stop at it); integrity_check also finds an index that disagrees with its table.
    problems = (await checkIntegrity(rawQuery(check))).problems;
    if (!problems.length) problems = (await checkIntegrity(rawQuery(check), { full: true })).problems;
    if (problems.length) assertNotInUse(check, file);
  } finally {
    check.close();
  }
  if (!problems.length) return { file, problems, tables: [], indexes: [] };

  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const fresh = `${file}.repair-${stamp}`;
  const db = new Libsql(fresh);
  let report: Omit<RepairReport, 'file' | 'problems' | 'kept'>;
  try {
    db.exec(`ATTACH DATABASE ${quoteText(damaged)} AS damaged`);
    report = copyAll(db);
    db.exec('DETACH DATABASE damaged');
    const verdict = await checkIntegrity(rawQuery(db), { full: true });
    if (!verdict.ok) throw new Error(`the fresh file did not pass integrity_check: ${verdict.problems.map((p) => p.detail).join('; ')}`);
    db.exec('PRAGMA journal_mode = WAL');
  } catch (error) {
    db.close();
    await rm(fresh, { force: true });
    if (isOryxError(error) && error.code === 'ORYX_E_SQLITE_REPAIR') throw error;
    throw sqliteError('ORYX_E_SQLITE_REPAIR', `Repairing ${file} failed; nothing was changed: ${errorMessage(error)}`, { cause: error });
  }
  db.close();
  const kept = `${file}.damaged-${stamp}`;
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(`${file}${suffix}`)) await rename(`${file}${suffix}`, `${kept}${suffix}`);
  for (const suffix of ['-wal', '-shm']) await rm(`${fresh}${suffix}`, { force: true });
  await rename(fresh, file);
  return { file, problems, kept, ...report };
}

/** Creates every table, copies its rows from the damaged file, then creates every index. */
function copyAll(db: Raw): Omit<RepairReport, 'file' | 'problems' | 'kept'> {
  const schema = db.prepare("SELECT type, name, sql FROM damaged.sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid").all() as { type: string; name: string; sql: string }[];
  const tables: RepairReport['tables'] = [];
  for (const t of schema.filter((s) => s.type === 'table')) db.exec(t.sql);
  for (const t of schema.filter((s) => s.type === 'table')) tables.push(copyTable(db, t.name));
  const indexes: string[] = [];
  for (const s of schema.filter((x) => x.type !== 'table')) {
    db.exec(s.sql);
    if (s.type === 'index') indexes.push(s.name);
  }
  return { tables, indexes };
}

/**
 * Copies one table in key order (rowid, or the primary key of a WITHOUT ROWID table) in pages,
 * never through an index (`NOT INDEXED`) and never by SQLite's transfer shortcut (which would
 * copy the damaged indexes with the rows): forward until a page cannot be read, then backward
 * from the end to the same place.
 */
function copyTable(db: Raw, table: string): { table: string; rows: number; unreadable?: boolean } {
  const info = db.prepare(`SELECT name, pk FROM pragma_table_info(${quoteText(table)}, 'damaged')`).all() as { name: string; pk: number }[];
  const withoutRowid = (db.prepare('SELECT wr FROM pragma_table_list WHERE schema = ? AND name = ?').get('damaged', table) as { wr: number } | undefined)?.wr === 1;
  const columns = info.map((c) => quoteName(c.name));
  const key = withoutRowid ? info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => quoteName(c.name)) : ['rowid'];
  const list = withoutRowid ? columns.join(', ') : ['rowid', ...columns].join(', ');
  const keyTuple = key.length === 1 ? key[0]! : `(${key.join(', ')})`;
  const marks = key.length === 1 ? '?' : `(${key.map(() => '?').join(', ')})`;
  const orderBy = (order: 'ASC' | 'DESC') => key.map((k) => `${k} ${order}`).join(', ');
  /** Copies up to `limit` rows strictly between `low` and `high` (either open), in `order`; returns how many. */
  const copy = (low: unknown[] | undefined, high: unknown[] | undefined, order: 'ASC' | 'DESC', limit: number): number => {
    const where = [...(low ? [`${keyTuple} > ${marks}`] : []), ...(high ? [`${keyTuple} < ${marks}`] : [])];
    return db.prepare(`INSERT INTO main.${quoteName(table)} (${list}) SELECT ${list} FROM damaged.${quoteName(table)} NOT INDEXED
      WHERE ${where.length ? where.join(' AND ') : '1'} ORDER BY ${orderBy(order)} LIMIT ${limit}`).run(...(low ?? []), ...(high ?? [])).changes;
  };
  /** The first key copied so far above `low` (or the very first), in `order`. */
  const edge = (order: 'ASC' | 'DESC', low?: unknown[]) => db.prepare(
    `SELECT ${key.join(', ')} FROM main.${quoteName(table)} ${low ? `WHERE ${keyTuple} > ${marks}` : ''} ORDER BY ${orderBy(order)} LIMIT 1`)
    .raw().get(...(low ?? [])) as unknown[] | undefined;
  /** Reads in `order` from one end, a page at a time (smaller pages near damage), until the end or an unreadable row. */
  const walk = (order: 'ASC' | 'DESC', low?: unknown[]): boolean => {
    let size = 500;
    for (;;) {
      const from = order === 'ASC' ? edge('DESC') : undefined;
      const to = order === 'DESC' ? edge('ASC', low) : undefined;
      try {
        if (copy(order === 'ASC' ? from : low, to, order, size) < size) return true;
      } catch {
        if (size === 1) return false;
        size = Math.max(1, Math.floor(size / 8));
      }
    }
  };
  let unreadable = false;
  if (!walk('ASC')) {
    unreadable = true;
    // From the far end back to the damage: the rows after it.
    walk('DESC', edge('DESC'));
  }
  const rows = Number((db.prepare(`SELECT COUNT(*) AS n FROM main.${quoteName(table)}`).get() as { n: number }).n);
  return { table, rows, ...(unreadable ? { unreadable } : {}) };
}

/** Refuses while a live process holds a session lease: it would keep writing to the damaged file. */
function assertNotInUse(db: Raw, file: string): void {
  let holders: { host: string; pid: number; session_id: string }[] = [];
  try {
    holders = db.prepare('SELECT host, pid, session_id FROM session_leases WHERE expires_at > ?').all(Date.now()) as typeof holders;
  } catch { /* no lease table, or it is the damaged part: nobody can be using it through the store */ }
  const live = holders.filter((h) => h.host !== hostname() || processAlive(Number(h.pid)));
  if (live.length) {
    throw sqliteError('ORYX_E_SQLITE_REPAIR', `${file} is in use: process ${live[0]!.pid} on ${live[0]!.host} runs session ${live[0]!.session_id}`, {
      data: { holders: live.map((h) => ({ host: h.host, pid: Number(h.pid) })) },
    });
  }
}

/** The check's query function on a raw connection. */
function rawQuery(db: Raw) {
  return {
    query: async <T>(sql: string): Promise<T[]> => {
      try { return db.prepare(sql).all() as T[]; } catch (error) { throw sqlFailure(error, sql); }
    },
  };
}

function quoteName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function quoteText(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
