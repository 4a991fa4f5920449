import type { Database } from '@oryxos/contracts';

/** Where a mail stands: being answered (`claimed`, then `replying` once the reply is written), or done. */
export type MailStatus = 'claimed' | 'replying' | 'answered' | 'refused' | 'ignored' | 'failed';

/** An `email_messages` row, as stored. */
export interface MailRow {
  account: string; message_id: string; uid: number | null; uidvalidity: number | null; status: MailStatus;
  owner: string | null; heartbeat_at: string | null; attempts: number; sender: string | null; subject: string | null;
  thread: string | null; session_id: string | null; run_id: string | null; stop_reason: string | null; reason: string | null;
  error_code: string | null; reply_message_id: string | null; reply_subject: string | null; reply: string | null; reply_html: string | null;
  notification_id: number | null; received_at: string; finished_at: string | null;
}

/** What a claim got: the mail is ours now (fresh, or taken over from a process that died), or someone else's. */
export type Claim = { taken: true; row: MailRow } | { taken: false; row: MailRow };

const iso = () => new Date().toISOString();
const num = (row: MailRow): MailRow => ({
  ...row, uid: row.uid === null ? null : Number(row.uid), uidvalidity: row.uidvalidity === null ? null : Number(row.uidvalidity),
  attempts: Number(row.attempts), notification_id: row.notification_id === null ? null : Number(row.notification_id),
});

/**
 * The door's tables behind a small API, in standard SQL with `?` parameters (SQLite and
 * PostgreSQL). `db` is a getter: the plugin is set up before the database is open.
 *
 * @example
 * const claims = new MailClaims(() => ctx.service('database'), 'bot@example.com@imap.example.com:993/INBOX');
 * const claim = await claims.claim({ messageId: '<a@b>', uid: 7, uidvalidity: 1, owner, isLive });
 */
export class MailClaims {
  constructor(private readonly db: () => Database, readonly account: string) {}

  /** The next UID to read for this mailbox; on a first start (or a new UIDVALIDITY) it begins at `first`. */
  async cursor(uidvalidity: number, first: number): Promise<number> {
    await this.db().execute('INSERT INTO email_cursors (account, uidvalidity, next_uid) VALUES (?, ?, ?) ON CONFLICT (account) DO NOTHING', [this.account, uidvalidity, first]);
    // A mailbox whose UIDVALIDITY changed was rebuilt: its UIDs mean other mails now (the claims, by Message-ID, still hold).
    await this.db().execute('UPDATE email_cursors SET uidvalidity = ?, next_uid = ? WHERE account = ? AND uidvalidity <> ?', [uidvalidity, first, this.account, uidvalidity]);
    const [row] = await this.db().query<{ next_uid: number }>('SELECT next_uid FROM email_cursors WHERE account = ?', [this.account]);
    return Number(row!.next_uid);
  }

  /** Moves the cursor forward (never back: another process may be further on). */
  async advance(uidvalidity: number, next: number): Promise<void> {
    await this.db().execute('UPDATE email_cursors SET next_uid = ? WHERE account = ? AND uidvalidity = ? AND next_uid < ?', [next, this.account, uidvalidity, next]);
  }

  /**
   * Claims a mail by its Message-ID. The first process to insert the row answers it; a row whose
   * owner is no longer live (`isLive`) and that is not done is taken over, once (compare-and-set
   * on the old owner), counting an attempt.
   */
  async claim(m: { messageId: string; uid: number; uidvalidity: number; owner: string; isLive(row: MailRow): boolean }): Promise<Claim> {
    const now = iso();
    const inserted = await this.db().execute(`INSERT INTO email_messages (account, message_id, uid, uidvalidity, status, owner, heartbeat_at, attempts, received_at)
      VALUES (?, ?, ?, ?, 'claimed', ?, ?, 1, ?) ON CONFLICT (account, message_id) DO NOTHING`, [this.account, m.messageId, m.uid, m.uidvalidity, m.owner, now, now]);
    const row = (await this.get(m.messageId))!;
    if (inserted.rowsAffected === 1) return { taken: true, row };
    return this.takeOver(row, m.owner, m.isLive);
  }

  /**
   * Takes over an open claim whose owner is gone; `taken: false` when it is done or still
   * someone's. Compare-and-set on the owner and the heartbeat that were judged stale: an owner
   * that renewed its claim in between keeps it (the mail is not answered twice).
   */
  async takeOver(row: MailRow, owner: string, isLive: (row: MailRow) => boolean): Promise<Claim> {
    if ((row.status !== 'claimed' && row.status !== 'replying') || isLive(row)) return { taken: false, row };
    const r = await this.db().execute(`UPDATE email_messages SET owner = ?, heartbeat_at = ?, attempts = attempts + 1
      WHERE account = ? AND message_id = ? AND status IN ('claimed', 'replying') AND owner = ? AND COALESCE(heartbeat_at, '') = ?`,
    [owner, iso(), this.account, row.message_id, row.owner, row.heartbeat_at ?? '']);
    if (r.rowsAffected !== 1) return { taken: false, row };
    return { taken: true, row: (await this.get(row.message_id))! };
  }

  async get(messageId: string): Promise<MailRow | undefined> {
    const [row] = await this.db().query<MailRow>('SELECT * FROM email_messages WHERE account = ? AND message_id = ?', [this.account, messageId]);
    return row && num(row);
  }

  /** Claims not done, oldest first: what a process that died may have left. */
  async open(): Promise<MailRow[]> {
    return (await this.db().query<MailRow>("SELECT * FROM email_messages WHERE account = ? AND status IN ('claimed', 'replying') ORDER BY received_at", [this.account])).map(num);
  }

  /** The thread of the mail whose reply had this Message-ID (a person answering the door's reply). */
  async threadOfReply(messageId: string): Promise<string | undefined> {
    const [row] = await this.db().query<{ thread: string | null }>('SELECT thread FROM email_messages WHERE account = ? AND reply_message_id = ?', [this.account, messageId]);
    return row?.thread ?? undefined;
  }

  /** The newest answered or waiting mail of a session: where a run continued later replies. */
  async lastOfSession(sessionId: string): Promise<MailRow | undefined> {
    const [row] = await this.db().query<MailRow>('SELECT * FROM email_messages WHERE account = ? AND session_id = ? ORDER BY received_at DESC LIMIT 1', [this.account, sessionId]);
    return row && num(row);
  }

  /** Renews our claims; true while the row is still ours. */
  async heartbeat(messageIds: string[], owner: string): Promise<void> {
    const now = iso();
    for (const id of messageIds) await this.db().execute('UPDATE email_messages SET heartbeat_at = ? WHERE account = ? AND message_id = ? AND owner = ?', [now, this.account, id, owner]);
  }

  /** Records what is known so far (sender, thread, session, run), while the claim is ours. */
  async note(messageId: string, owner: string, fields: Partial<Pick<MailRow, 'sender' | 'subject' | 'thread' | 'session_id' | 'run_id' | 'stop_reason'>>): Promise<void> {
    const keys = Object.keys(fields) as (keyof typeof fields)[];
    if (!keys.length) return;
    await this.db().execute(`UPDATE email_messages SET ${keys.map((k) => `${k} = ?`).join(', ')} WHERE account = ? AND message_id = ? AND owner = ?`,
      [...keys.map((k) => fields[k] ?? null), this.account, messageId, owner]);
  }

  /** The reply is written and about to go out: a process that dies now leaves it to be sent, not run again. */
  async replying(messageId: string, owner: string, reply: { messageId: string; subject: string; text: string; html: string }): Promise<boolean> {
    const r = await this.db().execute(`UPDATE email_messages SET status = 'replying', reply_message_id = ?, reply_subject = ?, reply = ?, reply_html = ?, heartbeat_at = ?
      WHERE account = ? AND message_id = ? AND owner = ? AND status IN ('claimed', 'replying')`, [reply.messageId, reply.subject, reply.text, reply.html, iso(), this.account, messageId, owner]);
    return r.rowsAffected === 1;
  }

  /** Ends a claim of ours. */
  async finish(messageId: string, owner: string, end: { status: Exclude<MailStatus, 'claimed' | 'replying'>; reason?: string; errorCode?: string; notificationId?: number }): Promise<void> {
    await this.db().execute(`UPDATE email_messages SET status = ?, reason = ?, error_code = ?, notification_id = COALESCE(?, notification_id), finished_at = ?
      WHERE account = ? AND message_id = ? AND owner = ?`, [end.status, end.reason ?? null, end.errorCode ?? null, end.notificationId ?? null, iso(), this.account, messageId, owner]);
  }

  /** Every row of the account, oldest first (tests, the README's table). */
  async all(): Promise<MailRow[]> {
    return (await this.db().query<MailRow>('SELECT * FROM email_messages WHERE account = ? ORDER BY received_at, message_id', [this.account])).map(num);
  }
}
