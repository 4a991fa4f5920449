import type { Database, DatabaseTx, SqlValue } from '@oryxos/contracts';
import { storeError } from './errors.ts';

/** Either side of a copy: any database service (SQLite, PostgreSQL). */
type Db = Pick<Database, 'url' | 'dialect' | 'execute' | 'query' | 'transaction'>;

/** One table as `oryx db copy` moved it. */
export interface CopiedTable {
  table: string;
  rows: number;
  /** SHA-256 over every row's values, independent of row order; the same on both sides or nothing is committed. */
  checksum: string;
}

export interface CopyReport {
  from: string;
  to: string;
  tables: CopiedTable[];
  rows: number;
}

/** Tables that are not copied: migration bookkeeping (the target has its own) and live session leases. */
const SKIPPED = new Set(['schema_migrations', 'session_leases']);
/** Parents before children (messages reference sessions); any other table after these, by name. */
const ORDER = ['sessions', 'messages', 'messages_quarantine', 'session_tags', 'call_marks', 'runs', 'llm_calls', 'tool_invocations', 'sandbox_events',
  'scheduled_tasks', 'task_executions', 'notify_channels', 'notifications'];
const PAGE = 500;

/**
 * Copies every table of `from` that holds data into the same tables of `to`, in one transaction
 * on the target: the target must have the tables and columns (`oryx db migrate` with a config
 * that points at it) and hold no rows in them. Each table's row count and an order-independent
 * checksum of its values are compared after the copy, read back through the target; a
 * difference rolls everything back.
 *
 * @example
 * const report = await copyDatabase(sqliteDb, postgresDb);
 * for (const t of report.tables) console.log(t.table, t.rows, t.checksum);
 */
export async function copyDatabase(from: Db, to: Db): Promise<CopyReport> {
  // Loaded here: a store plugin imports this kit at start, and a read command loads no crypto.
  const { createHash } = await import('node:crypto');
  const RowSum = rowSum(createHash);
  const tables = await plan(from, to);
  const copied: CopiedTable[] = [];
  await to.transaction(async (tx) => {
    for (const { table, columns, key } of tables) {
      const source = await copyTable(from, tx, table, columns, key, new RowSum());
      if (to.dialect === 'postgres' && key.length === 1) {
        // explicit ids leave an identity column's sequence behind: the next insert would collide
        const [seq] = await tx.query<{ s: string | null }>('SELECT pg_get_serial_sequence(?, ?) AS s', [quote(table), key[0]!]);
        if (seq?.s) await tx.query(`SELECT setval(?::regclass, (SELECT MAX(${quote(key[0]!)}) FROM ${quote(table)}))`, [seq.s]);
      }
      const target = await digest(tx, table, columns, key, new RowSum());
      if (target.rows !== source.rows || target.checksum !== source.checksum) {
        throw storeError('ORYX_E_DB_COPY', `Table ${table} differs after the copy: ${source.rows} row(s), checksum ${source.checksum.slice(0, 16)} in ${from.url}; `
          + `${target.rows} row(s), checksum ${target.checksum.slice(0, 16)} in ${to.url}. Nothing was written.`, { data: { table } });
      }
      copied.push({ table, rows: source.rows, checksum: source.checksum });
    }
  });
  return { from: from.url, to: to.url, tables: copied, rows: copied.reduce((n, t) => n + t.rows, 0) };
}

/** The tables to copy, each checked against the target: present there with every column, and empty. */
async function plan(from: Db, to: Db): Promise<{ table: string; columns: string[]; key: string[] }[]> {
  const source = (await tableNames(from)).filter((t) => !SKIPPED.has(t));
  const present = new Set(await tableNames(to));
  const rank = (t: string) => (ORDER.includes(t) ? ORDER.indexOf(t) : ORDER.length);
  source.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
  const out: { table: string; columns: string[]; key: string[] }[] = [];
  for (const table of source) {
    const rows = await count(from, table);
    if (rows === 0) continue;
    if (!present.has(table)) {
      throw storeError('ORYX_E_DB_COPY', `The target ${to.url} has no table ${table}, which holds ${rows} row(s) in ${from.url}. Nothing was written.`, {
        hint: 'Create the tables first: point oryx.config.ts at the target (with the same plugins enabled) and run `oryx db migrate`, then copy.',
        data: { table },
      });
    }
    const columns = await columnNames(from, table);
    const theirs = new Set(await columnNames(to, table));
    const missing = columns.filter((c) => !theirs.has(c));
    if (missing.length) {
      throw storeError('ORYX_E_DB_COPY', `The target's table ${table} lacks column(s) ${missing.join(', ')}. Nothing was written.`, {
        hint: 'Migrate the target with the same OryxOS version as the source (`oryx db migrate`), then copy.', data: { table, missing },
      });
    }
    const held = await count(to, table);
    if (held) {
      throw storeError('ORYX_E_DB_COPY', `The target's table ${table} already holds ${held} row(s); copy only into an empty, migrated database. Nothing was written.`, { data: { table } });
    }
    out.push({ table, columns, key: await keyOf(from, table) });
  }
  return out;
}

/** Inserts the source's rows into the target a page at a time. */
async function copyTable(from: Db, to: DatabaseTx, table: string, columns: string[], key: string[], sum: Sum): Promise<{ rows: number; checksum: string }> {
  const marks = `(${columns.map(() => '?').join(', ')})`;
  for await (const page of pages(from, table, columns, key)) {
    await to.execute(`INSERT INTO ${quote(table)} (${columns.map(quote).join(', ')}) VALUES ${page.map(() => marks).join(', ')}`,
      page.flatMap((row) => columns.map((c) => row[c] ?? null)));
    for (const row of page) sum.add(columns.map((c) => row[c] ?? null));
  }
  return sum.result();
}

/** Row count and checksum of a table as the database service reads it back. */
async function digest(db: Pick<Database, 'query'>, table: string, columns: string[], key: string[], sum: Sum): Promise<{ rows: number; checksum: string }> {
  for await (const page of pages(db, table, columns, key)) for (const row of page) sum.add(columns.map((c) => row[c] ?? null));
  return sum.result();
}

/** A table's rows in pages, by keyset on its primary key (one column or several: `(session_id, seq)`); a table without one in one read. */
async function* pages(db: Pick<Database, 'query'>, table: string, columns: string[], key: string[]): AsyncGenerator<Record<string, SqlValue>[]> {
  const list = `SELECT ${columns.map(quote).join(', ')} FROM ${quote(table)}`;
  if (!key.length || !key.every((k) => columns.includes(k))) {
    const all = await db.query<Record<string, SqlValue>>(list);
    for (let i = 0; i < all.length; i += pageSize(columns)) yield all.slice(i, i + pageSize(columns));
    return;
  }
  const size = pageSize(columns);
  const keyList = key.map(quote).join(', ');
  const after = key.length === 1 ? `${keyList} > ?` : `(${keyList}) > (${key.map(() => '?').join(', ')})`;
  let last: SqlValue[] | undefined;
  for (;;) {
    const page = await db.query<Record<string, SqlValue>>(
      `${list} ${last === undefined ? '' : `WHERE ${after}`} ORDER BY ${keyList} LIMIT ?`, last === undefined ? [size] : [...last, size]);
    if (page.length) yield page;
    if (page.length < size) return;
    const row = page[page.length - 1]!;
    last = key.map((k) => row[k] ?? null);
  }
}

/** Rows per page: at most 500, and at most 30,000 parameters per insert (both engines take that many). */
function pageSize(columns: string[]): number {
  return Math.max(1, Math.min(PAGE, Math.floor(30_000 / columns.length)));
}

interface Sum { add(values: SqlValue[]): void; result(): { rows: number; checksum: string } }

/** An order-independent checksum: the sum, modulo 2^256, of each row's SHA-256 over its typed values. */
function rowSum(createHash: typeof import('node:crypto').createHash) {
  return class RowSum implements Sum {
    private total = 0n;
    private rows = 0;
    add(values: SqlValue[]): void {
      const hash = createHash('sha256');
      for (const v of values) {
        if (v === null || v === undefined) hash.update('n;');
        else if (typeof v === 'string') hash.update(`s${Buffer.byteLength(v)}:`).update(v);
        else if (v instanceof Uint8Array) hash.update(`b${v.length}:`).update(v);
        else hash.update(`i${String(v)};`);
      }
      this.total = (this.total + BigInt(`0x${hash.digest('hex')}`)) & ((1n << 256n) - 1n);
      this.rows++;
    }
    result(): { rows: number; checksum: string } {
      return { rows: this.rows, checksum: this.total.toString(16).padStart(64, '0') };
    }
  };
}

async function tableNames(db: Db): Promise<string[]> {
  const rows = db.dialect === 'postgres'
    ? await db.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'")
    : await db.query<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'");
  return rows.map((r) => r.name);
}

async function columnNames(db: Db, table: string): Promise<string[]> {
  const rows = db.dialect === 'postgres'
    ? await db.query<{ name: string }>('SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position', [table])
    : await db.query<{ name: string }>('SELECT name FROM pragma_table_info(?) ORDER BY cid', [table]);
  return rows.map((r) => r.name);
}

/** The columns rows are paged by: the table's primary key, in key order (`id`; `session_id, seq`); none without one. */
async function keyOf(db: Db, table: string): Promise<string[]> {
  const rows = db.dialect === 'postgres'
    ? await db.query<{ name: string }>(`SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
        WHERE i.indrelid = to_regclass(?) AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`, [table])
    : await db.query<{ name: string }>('SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk', [table]);
  return rows.map((r) => r.name);
}

async function count(db: Pick<Database, 'query'>, table: string): Promise<number> {
  return Number((await db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${quote(table)}`))[0]?.n ?? 0);
}

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
