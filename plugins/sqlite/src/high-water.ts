import { readFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import type { DatabaseTx } from '@oryxos/contracts';
import { MESSAGE_COUNT } from '@oryxos/sql-store';
import { sqliteError } from './errors.ts';
import { recordedVersions } from './migrations.ts';

/** What this installation last saw committed in a database file: enough to tell an older copy of it. */
export interface Seen {
  /** Each owner's schema version (they only grow). */
  versions: Record<string, number>;
  /** The session with the latest activity, and how many messages it held. */
  newest?: { id: string; messages: number };
  /** The highest rowid of `sessions` and of `runs` (they only grow, but for deletes of the newest rows). */
  sessions: number;
  runs: number;
  /** When it was seen (ISO 8601). */
  at: string;
  /** What {@link observe} found of the sessions it was asked about: their messages, null when gone. */
  counts?: Record<string, number | null>;
}

/**
 * The high-water mark of a database file, kept beside it but outside it (`oryx.db.seen.json`),
 * so that losing the `-wal` file, or putting back an older copy of the main file, cannot pass
 * for a healthy database: at start the file is compared with what was last seen committed in it
 * (schema versions, the newest session's messages, the highest rowids), and a database holding
 * less is refused (or, for a command that only reads, reported loudly) with
 * ORYX_E_SQLITE_OLDER_THAN_SEEN. The mark is written about once a second while commits come,
 * at idle moments and at close; a database that a person deleted on purpose (no file at start)
 * starts a new mark.
 *
 * @example
 * const mark = new HighWater('/srv/.oryxos/oryx.db');
 * const older = mark.compare(await observe(db, [mark.read()?.newest?.id ?? ''])); // [] when the file holds at least what was seen
 */
export class HighWater {
  readonly file: string;
  private writing: Promise<void> | undefined;
  private last: string | undefined;

  constructor(readonly database: string) {
    this.file = `${database}.seen.json`;
  }

  /** The mark, or undefined when there is none (or it cannot be read: it is only advice). */
  read(): Seen | undefined {
    try {
      const value = JSON.parse(readFileSync(this.file, 'utf8')) as Seen;
      return value && typeof value === 'object' && typeof value.versions === 'object' ? value : undefined;
    } catch {
      return undefined;
    }
  }

  /** Why `now` holds less than the mark: one line per thing that went back; empty when it does not. */
  compare(now: Seen, seen = this.read()): string[] {
    if (!seen) return [];
    const older: string[] = [];
    for (const [owner, version] of Object.entries(seen.versions)) {
      if ((now.versions[owner] ?? 0) < version) older.push(`the ${owner} schema is at version ${now.versions[owner] ?? 0}, it was at ${version}`);
    }
    if (now.sessions < seen.sessions) older.push(now.sessions === 0 ? 'it has no sessions' : `its sessions end at row ${now.sessions}, they reached ${seen.sessions}`);
    if (now.runs < seen.runs) older.push(now.runs === 0 ? 'it has no runs' : `its runs end at row ${now.runs}, they reached ${seen.runs}`);
    const then = seen.newest;
    const kept = then && now.counts?.[then.id];
    if (then && kept !== undefined && kept !== null && kept < then.messages) older.push(`session ${then.id} holds ${kept} messages, it held ${then.messages}`);
    return older;
  }

  /** The refusal (or warning) for a database that holds less than its mark. */
  error(older: string[], seen: Seen): Error {
    return sqliteError('ORYX_E_SQLITE_OLDER_THAN_SEEN',
      `The database ${this.database} holds less than this installation saw in it on ${seen.at}: ${older.join('; ')}. `
      + 'Its -wal file was probably lost, or an older copy of it was put back.', {
        hint: `Put back the newer file (with its -wal file) if you have it. If this database is the one you want, delete ${this.file} and start again.`,
        data: { file: this.database, mark: this.file, older },
      });
  }

  /** Writes the mark (atomically: a half-written mark is never read); a write already going on is joined. */
  async write(seen: Seen): Promise<void> {
    const text = JSON.stringify(seen);
    if (text === this.last) return;
    await this.writing;
    this.last = text;
    const tmp = `${this.file}.${process.pid}.tmp`;
    this.writing = writeFile(tmp, `${text}\n`).then(() => rename(tmp, this.file)).catch(() => rm(tmp, { force: true }));
    await this.writing;
  }

  /** Forgets the mark (the database file was removed on purpose). */
  async forget(): Promise<void> {
    await rm(this.file, { force: true });
  }
}

/**
 * What a database holds now, in the mark's terms; cheap (index seeks and the schema table), so
 * it runs at start and about once a second while commits come.
 *
 * @example
 * const now = await observe(db); // { versions: { sqlite: 8, runs: 2 }, newest: { id, messages: 12 }, sessions: 40, runs: 55, at }
 */
export async function observe(db: Pick<DatabaseTx, 'query'>, sessions: string[] = []): Promise<Seen> {
  const versions = await recordedVersions(db);
  // Tables not there yet (a file whose schema was lost, or never made) hold nothing.
  const read = async <T>(sql: string, params: string[] = []): Promise<T[]> => db.query<T>(sql, params).catch((error) => {
    if (/no such table/.test(String((error as Error).message))) return [];
    throw error;
  });
  const max = async (table: string) => Number((await read<{ n: number | null }>(`SELECT MAX(rowid) AS n FROM ${table}`))[0]?.n ?? 0);
  // Before the store's migration 8 (a file not yet opened by this version), the column held the count.
  const count = (versions.sqlite ?? 0) >= 8 ? MESSAGE_COUNT : 'message_count';
  const [newest] = await read<{ id: string; message_count: number }>(`SELECT id, ${count} AS message_count FROM sessions ORDER BY updated_at DESC, id DESC LIMIT 1`);
  const counts: Record<string, number | null> = {};
  for (const id of sessions) {
    const [row] = await read<{ message_count: number }>(`SELECT ${count} AS message_count FROM sessions WHERE id = ?`, [id]);
    counts[id] = row ? Number(row.message_count) : null;
  }
  return {
    versions, sessions: await max('sessions'), runs: await max('runs'), at: new Date().toISOString(),
    ...(newest ? { newest: { id: newest.id, messages: Number(newest.message_count) } } : {}),
    ...(sessions.length ? { counts } : {}),
  };
}
