import { OryxError } from '@oryxos/provider-spec';

/**
 * Every error code this package raises or records, with how to fix it. `test/error-codes.test.ts`
 * checks this table against README.md so the two never drift. The delivery codes (DENIED to
 * SEND) are the `error_code` of a `notifications` row and what `oryx notify test` reports.
 *
 * @example
 * if (isOryxError(e) && e.code in ERROR_CODES) console.error(ERROR_CODES[e.code as NotifyErrorCode]);
 */
export const ERROR_CODES = {
  ORYX_E_NOTIFY_OPTIONS: 'Fix the notify() option the message names in oryx.config.ts.',
  ORYX_E_NOTIFY_BAD_CHANNEL: 'Fix the channel field the message names: name, host, port (1-65535), from and to (email addresses), user with a password (passEnv at run time).',
  ORYX_E_NOTIFY_DUPLICATE: 'A channel with that name exists (`oryx notify channels`): pick another name, or remove the old one first.',
  ORYX_E_NOTIFY_UNKNOWN_CHANNEL: 'Name a channel listed by `oryx notify channels`, or add one with `oryx notify add`.',
  ORYX_E_NOTIFY_CONFIG_CHANNEL: 'The channel is declared in oryx.config.ts: change or remove it there.',
  ORYX_E_NOTIFY_NOT_ENABLED: 'Add notify() from @oryxos/plugin-notify to `plugins` in oryx.config.ts.',
  ORYX_E_NOTIFY_SECRET_MISSING: 'Set the environment variable the message names (it holds the SMTP password) in the environment of the OryxOS process.',
  ORYX_E_NOTIFY_DENIED: 'Allow the SMTP server in the sandbox: sandbox({ smtp: { allow: ["host:port"] } }) in oryx.config.ts. No connection was opened.',
  ORYX_E_NOTIFY_DNS: 'The SMTP host name does not resolve: check the channel\'s host (and this machine\'s DNS).',
  ORYX_E_NOTIFY_CONNECT: 'No SMTP server answered at host:port (refused, unreachable or timed out): check host, port and firewalls; it was retried with backoff.',
  ORYX_E_NOTIFY_TLS: 'The TLS handshake failed: use secure: true for port 465 (implicit TLS) and false for 587/25 (STARTTLS), and check the server\'s certificate.',
  ORYX_E_NOTIFY_AUTH: 'The SMTP server refused the user and password: fix user, or the password in the environment variable the channel names. Not retried.',
  ORYX_E_NOTIFY_REJECTED: 'The server refused a recipient or the sender: fix the channel\'s to and from addresses (the message names the ones refused).',
  ORYX_E_NOTIFY_BAD_MESSAGE: 'Fix the message field the message names (a caller of the notify service: to must be email addresses, message ids <local@domain>, headers one line each and none the transport sets).',
  ORYX_E_NOTIFY_SEND: 'The SMTP server refused the message; the message has its answer. 4xx answers were retried, 5xx are final.',
} as const;

export type NotifyErrorCode = keyof typeof ERROR_CODES;

/** An OryxError with one of this package's codes; the hint defaults to the table's. */
export function notifyError(
  code: NotifyErrorCode, message: string, options: { hint?: string; cause?: unknown; data?: Record<string, unknown> } = {},
): OryxError {
  return new OryxError(code, message, { ...options, hint: options.hint ?? ERROR_CODES[code] });
}
