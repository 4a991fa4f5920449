import type { Database } from '@oryxos/contracts';
import type { Channel } from './channel.ts';

/**
 * Every SQL statement of the notify plugin, in standard SQL with `?` parameters, so the same
 * module serves SQLite and PostgreSQL.
 */

/** A `notify_channels` row, as stored. */
export interface ChannelRow {
  name: string; kind: string; host: string; port: number; secure: number; require_tls: number; username: string | null;
  password_env: string | null; from_address: string; to_addresses: string; enabled: number; created_at: string; updated_at: string;
}

/** A `notifications` row, as stored. */
export interface NotificationRow {
  id: number; channel: string; recipients: string; subject: string; status: 'sending' | 'sent' | 'failed' | 'denied'; attempts: number;
  error_code: string | null; error: string | null; message_id: string | null; origin: string | null; session_id: string | null;
  run_id: string | null; created_at: string; finished_at: string | null;
}

/** A stored channel as a channel. */
export function channelOf(row: ChannelRow): Channel {
  return {
    name: row.name, host: row.host, port: Number(row.port), secure: Number(row.secure) === 1, requireTLS: Number(row.require_tls) === 1,
    ...(row.username ? { user: row.username } : {}), ...(row.password_env ? { pass: { env: row.password_env } } : {}),
    from: row.from_address, to: JSON.parse(row.to_addresses) as string[], source: 'runtime',
  };
}

/**
 * The notify plugin's tables behind a small API. `db` is a getter: the plugin is set up before
 * the database is open.
 */
export class NotifyStore {
  constructor(private readonly db: () => Database) {}

  async listChannels(): Promise<Channel[]> {
    return (await this.db().query<ChannelRow>('SELECT * FROM notify_channels ORDER BY name')).map(channelOf);
  }

  async getChannel(name: string): Promise<Channel | undefined> {
    const [row] = await this.db().query<ChannelRow>('SELECT * FROM notify_channels WHERE name = ?', [name]);
    return row && channelOf(row);
  }

  /** False when the name is taken. */
  async insertChannel(c: Channel, now: string): Promise<boolean> {
    const r = await this.db().execute(`INSERT INTO notify_channels (name, kind, host, port, secure, require_tls, username, password_env,
      from_address, to_addresses, enabled, created_at, updated_at) VALUES (?, 'smtp', ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?) ON CONFLICT (name) DO NOTHING`, [
      c.name, c.host, c.port, c.secure ? 1 : 0, c.requireTLS ? 1 : 0, c.user ?? null, c.pass && 'env' in c.pass ? c.pass.env : null,
      c.from, JSON.stringify(c.to), now, now,
    ]);
    return r.rowsAffected === 1;
  }

  async deleteChannel(name: string): Promise<boolean> {
    return (await this.db().execute('DELETE FROM notify_channels WHERE name = ?', [name])).rowsAffected === 1;
  }

  /** The row of a send, written before anything goes out, so a crash mid-send still leaves a trace. */
  async begin(n: { channel: string; recipients: string[]; subject: string; origin?: string; sessionId?: string; runId?: string; now: string }): Promise<number> {
    const [row] = await this.db().query<{ id: number }>(`INSERT INTO notifications (channel, recipients, subject, status, attempts, origin, session_id,
      run_id, created_at) VALUES (?, ?, ?, 'sending', 0, ?, ?, ?, ?) RETURNING id`, [
      n.channel, JSON.stringify(n.recipients), n.subject, n.origin ?? null, n.sessionId ?? null, n.runId ?? null, n.now,
    ]);
    return Number(row!.id);
  }

  async finish(id: number, o: { status: 'sent' | 'failed' | 'denied'; attempts: number; errorCode?: string; error?: string; messageId?: string; now: string }): Promise<void> {
    await this.db().execute('UPDATE notifications SET status = ?, attempts = ?, error_code = ?, error = ?, message_id = ?, finished_at = ? WHERE id = ?', [
      o.status, o.attempts, o.errorCode ?? null, o.error ?? null, o.messageId ?? null, o.now, id,
    ]);
  }
}
