import { OryxError } from '@oryxos/provider-spec';

/**
 * Every error code this package raises or records, with how to fix it. `test/readme.test.ts`
 * checks this table against README.md so the two never drift.
 *
 * @example
 * if (isOryxError(e) && e.code in ERROR_CODES) console.error(ERROR_CODES[e.code as TelegramErrorCode]);
 */
export const ERROR_CODES = {
  ORYX_E_TELEGRAM_OPTIONS: 'Fix the telegram() option the message names in oryx.config.ts (see the option table in the @oryxos/channel-telegram README).',
  ORYX_E_TELEGRAM_SECRET_MISSING: 'Set the environment variable tokenEnv names (default TELEGRAM_BOT_TOKEN: the token @BotFather gave) in the environment of the OryxOS process.',
  ORYX_E_TELEGRAM_AUTH: 'The Bot API refused the token (401): take the token from @BotFather again and set it in the variable tokenEnv names.',
  ORYX_E_TELEGRAM_CONNECT: 'The Bot API did not answer at apiRoot: check the network (and apiRoot, when you run a local Bot API server); the door retries with backoff.',
  ORYX_E_TELEGRAM_CONFLICT: 'Another process polls this bot (409 Conflict): run one `oryx serve` per bot (or give each its own bot), and remove a webhook set elsewhere.',
  ORYX_E_TELEGRAM_SEND: 'The Bot API refused a message (the log names why, e.g. a chat the bot may not write to): check the bot\'s rights in that chat.',
  ORYX_E_TELEGRAM_GAVE_UP: 'An update was tried maxAttempts times (its process died each time) and is left unanswered: read the log of those runs and fix the cause.',
} as const;

export type TelegramErrorCode = keyof typeof ERROR_CODES;

/** An OryxError with one of this package's codes; the hint defaults to the table's. */
export function telegramError(code: TelegramErrorCode, message: string, options: { hint?: string; cause?: unknown; data?: Record<string, unknown> } = {}): OryxError {
  return new OryxError(code, message, { ...options, hint: options.hint ?? ERROR_CODES[code] });
}
