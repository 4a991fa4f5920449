import { shape as s, validateOptions } from '@oryxos/schema-kit';

/** Options of {@link telegram}. */
export interface TelegramOptions {
  /** The agent that answers. Default: the config's `defaultAgent`, else `assistant`. */
  agent?: string;
  /** The environment variable holding the bot token. Default `TELEGRAM_BOT_TOKEN`. */
  tokenEnv?: string;
  /** Who may talk to the agent: these users anywhere, everyone in these chats. Nobody when both are empty: deny by default. */
  allow: { users?: number[]; chats?: number[] };
  /** Sent to someone who is not allowed; default nothing (a refusal is audited either way). */
  refusal?: string;
  /** The Bot API server. Default `https://api.telegram.org` (or a local Bot API server). */
  apiRoot?: string;
  /** Seconds a long poll waits for updates. Default 30. */
  pollTimeoutSec?: number;
  /** A streamed answer is shown by editing the reply at most this often. Default 1000. */
  editIntervalMs?: number;
  /** Show the answer while the model writes it (edits), or only when done. Default true. */
  stream?: boolean;
  /** 429 answers are retried after their `retry_after`, at most this many times per call. Default 5. */
  maxRetries?: number;
  /** A `retry_after` longer than this is not waited for (the call fails). Default 60000. */
  maxRetryAfterMs?: number;
  /** Backoff after a failed poll: first and longest wait. Default 1000 / 60000. */
  reconnect?: { baseDelayMs?: number; maxDelayMs?: number };
  /** A claim whose process stops renewing it for this long is taken over. Default 60000. */
  leaseMs?: number;
  /** Tries of one update (a process that dies mid-run is a try). Default 3. */
  maxAttempts?: number;
  /** On shutdown, runs going on get this long to finish. Default 30000. */
  graceMs?: number;
}

export interface ResolvedTelegramOptions {
  agent?: string;
  tokenEnv: string;
  allow: { users: number[]; chats: number[] };
  refusal?: string;
  apiRoot: string;
  pollTimeoutSec: number;
  editIntervalMs: number;
  stream: boolean;
  maxRetries: number;
  maxRetryAfterMs: number;
  reconnect: { baseDelayMs: number; maxDelayMs: number };
  leaseMs: number;
  maxAttempts: number;
  graceMs: number;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const OPTIONS = s.object({
  agent: s.string({ min: 1 }).optional(),
  tokenEnv: s.string().refine((v) => ENV_NAME.test(v), 'an environment variable name (the token itself never goes in the config)').optional(),
  allow: s.object({ users: s.array(s.integer()).optional(), chats: s.array(s.integer()).optional() }),
  refusal: s.string({ min: 1, max: 4000 }).optional(),
  apiRoot: s.string().refine((v) => /^https?:\/\/[^\s/]+/.test(v), 'an http(s) URL').optional(),
  pollTimeoutSec: s.integer({ min: 0, max: 50 }).optional(),
  editIntervalMs: s.integer({ min: 100 }).optional(),
  stream: s.boolean().optional(),
  maxRetries: s.integer({ min: 0, max: 20 }).optional(),
  maxRetryAfterMs: s.integer({ min: 0 }).optional(),
  reconnect: s.object({ baseDelayMs: s.integer({ min: 10 }).optional(), maxDelayMs: s.integer({ min: 10 }).optional() }).optional(),
  leaseMs: s.integer({ min: 1000 }).optional(),
  maxAttempts: s.integer({ min: 1, max: 20 }).optional(),
  graceMs: s.integer({ min: 0 }).optional(),
});

/**
 * Checks the factory's options at once: ORYX_E_TELEGRAM_OPTIONS names the field.
 *
 * @example
 * resolveOptions({ allow: { users: [123456789] } });
 */
export function resolveOptions(raw: unknown): ResolvedTelegramOptions {
  const o = validateOptions(OPTIONS, raw, { plugin: 'telegram', code: 'ORYX_E_TELEGRAM_OPTIONS', example: 'telegram({ allow: { users: [123456789] } })' });
  const base = o.reconnect?.baseDelayMs ?? 1000;
  return {
    ...(o.agent ? { agent: o.agent } : {}),
    tokenEnv: o.tokenEnv ?? 'TELEGRAM_BOT_TOKEN',
    allow: { users: o.allow.users ?? [], chats: o.allow.chats ?? [] },
    ...(o.refusal ? { refusal: o.refusal } : {}),
    apiRoot: (o.apiRoot ?? 'https://api.telegram.org').replace(/\/+$/, ''),
    pollTimeoutSec: o.pollTimeoutSec ?? 30,
    editIntervalMs: o.editIntervalMs ?? 1000,
    stream: o.stream ?? true,
    maxRetries: o.maxRetries ?? 5,
    maxRetryAfterMs: o.maxRetryAfterMs ?? 60_000,
    reconnect: { baseDelayMs: base, maxDelayMs: Math.max(base, o.reconnect?.maxDelayMs ?? 60_000) },
    leaseMs: o.leaseMs ?? 60_000,
    maxAttempts: o.maxAttempts ?? 3,
    graceMs: o.graceMs ?? 30_000,
  };
}
