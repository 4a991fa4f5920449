import type { Migration } from '@oryxos/contracts';

/** The owner name this plugin's migrations are recorded under in `schema_migrations`. */
export const OWNER = 'channel-telegram';

/**
 * `telegram_updates`: one row per update the door took, keyed by bot and `update_id` — the claim
 * that makes each update handled once across restarts (its payload kept, so an update whose
 * process died is handled from the row, whatever Telegram still holds). `telegram_offsets`: the
 * next `offset` for getUpdates per bot, so a restart confirms what was taken and Telegram sends
 * nothing twice. `telegram_chats`: per chat, which conversation is current (`/new` moves on).
 * The same SQL on SQLite and PostgreSQL.
 */
export const MIGRATIONS: readonly Migration[] = Object.freeze([
  {
    version: 1,
    name: 'updates-offsets-chats',
    statements: [
      `CREATE TABLE telegram_updates (
        bot TEXT NOT NULL,
        update_id BIGINT NOT NULL,
        status TEXT NOT NULL,
        owner TEXT,
        heartbeat_at TEXT,
        attempts INTEGER NOT NULL DEFAULT 1,
        kind TEXT NOT NULL,
        chat_id BIGINT,
        user_id BIGINT,
        payload TEXT NOT NULL,
        session_id TEXT,
        run_id TEXT,
        stop_reason TEXT,
        reason TEXT,
        received_at TEXT NOT NULL,
        finished_at TEXT,
        PRIMARY KEY (bot, update_id)
      )`,
      "CREATE INDEX telegram_updates_open ON telegram_updates (bot, status) WHERE status = 'claimed'",
      `CREATE TABLE telegram_offsets (
        bot TEXT PRIMARY KEY,
        next_offset BIGINT NOT NULL,
        updated_at TEXT NOT NULL
      )`,
      `CREATE TABLE telegram_chats (
        bot TEXT NOT NULL,
        chat_id BIGINT NOT NULL,
        generation INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (bot, chat_id)
      )`,
    ],
  },
]);
