import type { Database } from '@oryxos/contracts';

/** Where an update stands. */
export type UpdateStatus = 'claimed' | 'done' | 'refused' | 'ignored' | 'failed';

/** A `telegram_updates` row, as stored. */
export interface UpdateRow {
  bot: string; update_id: number; status: UpdateStatus; owner: string | null; heartbeat_at: string | null; attempts: number;
  kind: string; chat_id: number | null; user_id: number | null; payload: string; session_id: string | null; run_id: string | null;
  stop_reason: string | null; reason: string | null; received_at: string; finished_at: string | null;
}

const iso = () => new Date().toISOString();
const num = (r: UpdateRow): UpdateRow => ({
  ...r, update_id: Number(r.update_id), attempts: Number(r.attempts), chat_id: r.chat_id === null ? null : Number(r.chat_id), user_id: r.user_id === null ? null : Number(r.user_id),
});

/**
 * The door's tables behind a small API, in standard SQL with `?` parameters (SQLite and
 * PostgreSQL). `db` is a getter: the plugin is set up before the database is open.
 *
 * @example
 * const store = new TelegramStore(() => ctx.service('database'), '4242');
 * const offset = await store.offset();
 */
export class TelegramStore {
  constructor(private readonly db: () => Database, readonly bot: string) {}

  /** The next getUpdates offset, or undefined before the first update. */
  async offset(): Promise<number | undefined> {
    const [row] = await this.db().query<{ next_offset: number }>('SELECT next_offset FROM telegram_offsets WHERE bot = ?', [this.bot]);
    return row ? Number(row.next_offset) : undefined;
  }

  /** Moves the offset forward (never back). */
  async setOffset(next: number): Promise<void> {
    const now = iso();
    await this.db().execute('INSERT INTO telegram_offsets (bot, next_offset, updated_at) VALUES (?, ?, ?) ON CONFLICT (bot) DO NOTHING', [this.bot, next, now]);
    await this.db().execute('UPDATE telegram_offsets SET next_offset = ?, updated_at = ? WHERE bot = ? AND next_offset < ?', [next, now, this.bot, next]);
  }

  /** Claims an update (its payload kept); `taken` false when another process (or an earlier run) has it. */
  async claim(u: { updateId: number; kind: string; chatId?: number; userId?: number; payload: unknown; owner: string }): Promise<{ taken: boolean; row: UpdateRow }> {
    const now = iso();
    const r = await this.db().execute(`INSERT INTO telegram_updates (bot, update_id, status, owner, heartbeat_at, attempts, kind, chat_id, user_id, payload, received_at)
      VALUES (?, ?, 'claimed', ?, ?, 1, ?, ?, ?, ?, ?) ON CONFLICT (bot, update_id) DO NOTHING`,
    [this.bot, u.updateId, u.owner, now, u.kind, u.chatId ?? null, u.userId ?? null, JSON.stringify(u.payload), now]);
    return { taken: r.rowsAffected === 1, row: (await this.get(u.updateId))! };
  }

  /**
   * Takes over an open claim whose owner is gone, counting an attempt: compare-and-set on the old
   * owner and the heartbeat that was judged stale, so an owner that renewed it in between keeps it.
   */
  async takeOver(row: UpdateRow, owner: string): Promise<UpdateRow | undefined> {
    const r = await this.db().execute(`UPDATE telegram_updates SET owner = ?, heartbeat_at = ?, attempts = attempts + 1
      WHERE bot = ? AND update_id = ? AND status = 'claimed' AND owner = ? AND COALESCE(heartbeat_at, '') = ?`,
    [owner, iso(), this.bot, row.update_id, row.owner, row.heartbeat_at ?? '']);
    return r.rowsAffected === 1 ? this.get(row.update_id) : undefined;
  }

  async get(updateId: number): Promise<UpdateRow | undefined> {
    const [row] = await this.db().query<UpdateRow>('SELECT * FROM telegram_updates WHERE bot = ? AND update_id = ?', [this.bot, updateId]);
    return row && num(row);
  }

  /** Claims not done, oldest first. */
  async open(): Promise<UpdateRow[]> {
    return (await this.db().query<UpdateRow>("SELECT * FROM telegram_updates WHERE bot = ? AND status = 'claimed' ORDER BY update_id", [this.bot])).map(num);
  }

  async heartbeat(updateIds: number[], owner: string): Promise<void> {
    const now = iso();
    for (const id of updateIds) await this.db().execute('UPDATE telegram_updates SET heartbeat_at = ? WHERE bot = ? AND update_id = ? AND owner = ?', [now, this.bot, id, owner]);
  }

  async note(updateId: number, owner: string, fields: Partial<Pick<UpdateRow, 'session_id' | 'run_id' | 'stop_reason'>>): Promise<void> {
    const keys = Object.keys(fields) as (keyof typeof fields)[];
    if (!keys.length) return;
    await this.db().execute(`UPDATE telegram_updates SET ${keys.map((k) => `${k} = ?`).join(', ')} WHERE bot = ? AND update_id = ? AND owner = ?`,
      [...keys.map((k) => fields[k] ?? null), this.bot, updateId, owner]);
  }

  async finish(updateId: number, owner: string, status: Exclude<UpdateStatus, 'claimed'>, reason?: string): Promise<void> {
    await this.db().execute('UPDATE telegram_updates SET status = ?, reason = ?, finished_at = ? WHERE bot = ? AND update_id = ? AND owner = ?',
      [status, reason ?? null, iso(), this.bot, updateId, owner]);
  }

  /** The chat's current conversation: 0 until `/new`. */
  async generation(chatId: number): Promise<number> {
    const [row] = await this.db().query<{ generation: number }>('SELECT generation FROM telegram_chats WHERE bot = ? AND chat_id = ?', [this.bot, chatId]);
    return row ? Number(row.generation) : 0;
  }

  /** `/new`: the chat's next conversation. */
  async nextGeneration(chatId: number): Promise<number> {
    await this.db().execute('INSERT INTO telegram_chats (bot, chat_id, generation) VALUES (?, ?, 0) ON CONFLICT (bot, chat_id) DO NOTHING', [this.bot, chatId]);
    await this.db().execute('UPDATE telegram_chats SET generation = generation + 1 WHERE bot = ? AND chat_id = ?', [this.bot, chatId]);
    return this.generation(chatId);
  }

  /** Every row of the bot, by update id (tests). */
  async all(): Promise<UpdateRow[]> {
    return (await this.db().query<UpdateRow>('SELECT * FROM telegram_updates WHERE bot = ? ORDER BY update_id', [this.bot])).map(num);
  }
}
