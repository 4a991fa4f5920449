import { open } from 'node:fs/promises';
import type { DatabaseTx, IntegrityProblem } from '@oryxos/contracts';
import { errorMessage } from '@oryxos/provider-spec';

export type { IntegrityProblem };

/** What {@link checkIntegrity} found. */
export interface IntegrityReport {
  ok: boolean;
  /** `quick_check` (page structure of every table and index) or `integrity_check` (also index contents). */
  check: 'quick_check' | 'integrity_check';
  problems: IntegrityProblem[];
}

/**
 * Runs `PRAGMA quick_check` (or, with `full`, the slower `integrity_check`, which also
 * compares each index with its table) and says what each problem is in: an `index` (rebuilt
 * from its table by `oryx db repair`), a `table` (its readable rows recovered by `oryx db
 * repair`), or the `file` when SQLite names no b-tree.
 *
 * @example
 * const report = await checkIntegrity(db);
 * if (!report.ok) for (const p of report.problems) console.log(p.kind, p.name ?? '', p.detail);
 */
export async function checkIntegrity(db: Pick<DatabaseTx, 'query'>, options: { full?: boolean; maxProblems?: number } = {}): Promise<IntegrityReport> {
  const check = options.full ? 'integrity_check' : 'quick_check';
  const max = Math.max(1, Math.floor(options.maxProblems ?? 100));
  let lines: string[];
  try {
    const rows = await db.query<Record<string, unknown>>(`PRAGMA ${check}(${max})`);
    lines = rows.flatMap((row) => String(Object.values(row)[0] ?? '').split('\n')).filter((l) => l && !/^\*\*\* in database/.test(l));
  } catch (error) {
    // So damaged that the check itself cannot run (page 1, the schema).
    return { ok: false, check, problems: [{ kind: 'file', detail: errorMessage(error) }] };
  }
  if (lines.length === 1 && lines[0] === 'ok') return { ok: true, check, problems: [] };
  const trees = await rootPages(db);
  const problems = lines.map((detail): IntegrityProblem => {
    // "Tree 7 page 7 cell 0: …", "row 3 missing from index x", "wrong # of entries in index x"
    const tree = /^Tree (\d+) page/.exec(detail);
    const known = tree ? trees.get(Number(tree[1])) : undefined;
    if (known) return { kind: known.type === 'index' ? 'index' : 'table', name: known.name, detail };
    const index = /(?:missing from|in) index (\S+)/.exec(detail);
    if (index) return { kind: 'index', name: index[1]!, detail };
    return { kind: 'file', detail };
  });
  return { ok: false, check, problems };
}

/** Each b-tree by its root page; empty when the schema cannot be read. */
async function rootPages(db: Pick<DatabaseTx, 'query'>): Promise<Map<number, { type: string; name: string }>> {
  try {
    const rows = await db.query<{ type: string; name: string; rootpage: number }>("SELECT type, name, rootpage FROM sqlite_master WHERE rootpage > 0");
    return new Map(rows.map((r) => [Number(r.rootpage), { type: r.type, name: r.name }]));
  } catch {
    return new Map();
  }
}

const MAGIC = Buffer.from('SQLite format 3\0');

/**
 * Whether a file SQLite refused as "not a database" is one whose header (its first 100 bytes)
 * was damaged: it does not start with SQLite's magic string, but its first page still holds
 * the schema (`CREATE TABLE`), as only a database file's does. A file that never was a database
 * (a text file, random bytes) is not one.
 *
 * @example
 * if (await damagedHeader('/srv/oryx.db')) console.log('restore it from a backup');
 */
export async function damagedHeader(file: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, 'r');
    const page = Buffer.alloc(65_536);
    const { bytesRead } = await handle.read(page, 0, page.length, 0);
    if (bytesRead < 512) return false;
    if (page.subarray(0, MAGIC.length).equals(MAGIC)) return false;
    return page.subarray(0, bytesRead).includes('CREATE TABLE');
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}
