import { errorMessage } from '@oryxos/provider-spec';
import type { Database } from '@oryxos/contracts';

/** One problem SQLite's check found, with the table or index it is in when SQLite says. */
export interface IntegrityProblem {
  /** `index messages_user_turns`, `table messages`; absent when SQLite names no b-tree. */
  object?: string;
  detail: string;
}

/** What {@link checkIntegrity} found. */
export interface IntegrityReport {
  ok: boolean;
  /** `quick_check` (page structure of every table and index) or `integrity_check` (also index contents). */
  check: 'quick_check' | 'integrity_check';
  problems: IntegrityProblem[];
}

/**
 * Runs `PRAGMA quick_check` (or, with `full`, the slower `integrity_check`, which also
 * compares each index with its table) and names the table or index each problem is in. A
 * damaged index can be rebuilt with `REINDEX name`; a damaged table needs a backup.
 * Also reachable as `kernel.service('database').check()` on the sqlite plugin's service.
 *
 * @example
 * const report = await checkIntegrity(kernel.service('database'));
 * if (!report.ok) for (const p of report.problems) console.log(p.object ?? '', p.detail);
 */
export async function checkIntegrity(db: Pick<Database, 'query'>, options: { full?: boolean; maxProblems?: number } = {}): Promise<IntegrityReport> {
  const check = options.full ? 'integrity_check' : 'quick_check';
  const max = Math.max(1, Math.floor(options.maxProblems ?? 100));
  let lines: string[];
  try {
    const rows = await db.query<Record<string, unknown>>(`PRAGMA ${check}(${max})`);
    lines = rows.flatMap((row) => String(Object.values(row)[0] ?? '').split('\n')).filter((l) => l && !/^\*\*\* in database/.test(l));
  } catch (error) {
    // So damaged that the check itself cannot run (page 1, the schema).
    return { ok: false, check, problems: [{ detail: errorMessage(error) }] };
  }
  if (lines.length === 1 && lines[0] === 'ok') return { ok: true, check, problems: [] };
  const names = await rootPages(db);
  const problems = lines.map((detail) => {
    const tree = /^Tree (\d+) page/.exec(detail);
    const object = tree ? names.get(Number(tree[1])) : undefined;
    return object ? { object, detail } : { detail };
  });
  return { ok: false, check, problems };
}

/** `type name` of every b-tree by its root page; empty when the schema cannot be read. */
async function rootPages(db: Pick<Database, 'query'>): Promise<Map<number, string>> {
  try {
    const rows = await db.query<{ type: string; name: string; rootpage: number }>("SELECT type, name, rootpage FROM sqlite_master WHERE rootpage > 0");
    return new Map(rows.map((r) => [Number(r.rootpage), `${r.type} ${r.name}`]));
  } catch {
    return new Map();
  }
}
