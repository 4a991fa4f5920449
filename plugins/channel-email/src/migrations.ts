import type { Migration } from '@oryxos/contracts';

/** The owner name this plugin's migrations are recorded under in `schema_migrations`. */
export const OWNER = 'channel-email';

/**
 * `email_messages`: one row per mail the door saw, keyed by its account and Message-ID — the
 * claim that makes each mail answered once, by one process, across restarts (`INSERT … ON
 * CONFLICT DO NOTHING`: whoever inserts first answers it; a claim whose owner died is taken over).
 * `email_cursors`: per account and mailbox, the UIDVALIDITY seen and the next UID to read.
 * The same SQL on SQLite and PostgreSQL.
 */
export const MIGRATIONS: readonly Migration[] = Object.freeze([
  {
    version: 1,
    name: 'messages-and-cursors',
    statements: [
      `CREATE TABLE email_messages (
        account TEXT NOT NULL,
        message_id TEXT NOT NULL,
        uid BIGINT,
        uidvalidity BIGINT,
        status TEXT NOT NULL,
        owner TEXT,
        heartbeat_at TEXT,
        attempts INTEGER NOT NULL DEFAULT 1,
        sender TEXT,
        subject TEXT,
        thread TEXT,
        session_id TEXT,
        run_id TEXT,
        stop_reason TEXT,
        reason TEXT,
        error_code TEXT,
        reply_message_id TEXT,
        reply_subject TEXT,
        reply TEXT,
        reply_html TEXT,
        notification_id BIGINT,
        received_at TEXT NOT NULL,
        finished_at TEXT,
        PRIMARY KEY (account, message_id)
      )`,
      'CREATE INDEX email_messages_by_reply ON email_messages (account, reply_message_id)',
      "CREATE INDEX email_messages_open ON email_messages (account, status) WHERE status IN ('claimed', 'replying')",
      'CREATE INDEX email_messages_by_session ON email_messages (session_id)',
      `CREATE TABLE email_cursors (
        account TEXT PRIMARY KEY,
        uidvalidity BIGINT NOT NULL,
        next_uid BIGINT NOT NULL
      )`,
    ],
  },
]);
