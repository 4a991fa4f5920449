import { OryxError } from '@oryxos/provider-spec';

/**
 * Every error code this package raises or records, with how to fix it. `test/readme.test.ts`
 * checks this table against README.md so the two never drift. The IMAP codes are what
 * `oryx doctor` reports and what the door logs while it reconnects.
 *
 * @example
 * if (isOryxError(e) && e.code in ERROR_CODES) console.error(ERROR_CODES[e.code as EmailErrorCode]);
 */
export const ERROR_CODES = {
  ORYX_E_EMAIL_OPTIONS: 'Fix the email() option the message names in oryx.config.ts (see the option table in the @oryxos/channel-email README).',
  ORYX_E_EMAIL_SECRET_MISSING: 'Set the environment variable imap.passEnv names (it holds the IMAP password) in the environment of the OryxOS process.',
  ORYX_E_EMAIL_NO_CHANNEL: 'Declare the SMTP channel email({ smtp }) names in notify({ channels }) (or `oryx notify add`), and enable notify() in oryx.config.ts.',
  ORYX_E_EMAIL_CONNECT: 'No IMAP server answered at imap.host:imap.port: check them and the firewall; the door retries with backoff.',
  ORYX_E_EMAIL_TLS: 'The TLS handshake with the IMAP server failed: tls: "implicit" for port 993, "starttls" for 143, and check the server\'s certificate.',
  ORYX_E_EMAIL_AUTH: 'The IMAP server refused imap.user and the password in imap.passEnv: fix them. Not retried until the next start.',
  ORYX_E_EMAIL_MAILBOX: 'The IMAP server has no mailbox named imap.mailbox (default INBOX): fix the name.',
  ORYX_E_EMAIL_TOO_LARGE: 'A mail was larger than maxMessageBytes and was not read (its row says so): raise maxMessageBytes, or answer it yourself.',
  ORYX_E_EMAIL_REPLY_FAILED: 'The reply could not be sent through the notify channel (its row in `notifications` names why: sandbox, connect, auth): fix the channel or sandbox({ smtp }).',
  ORYX_E_EMAIL_GAVE_UP: 'A mail was tried maxAttempts times (its process died each time) and is left unanswered: read the log of those runs, fix the cause, then answer it yourself.',
} as const;

export type EmailErrorCode = keyof typeof ERROR_CODES;

/** An OryxError with one of this package's codes; the hint defaults to the table's. */
export function emailError(code: EmailErrorCode, message: string, options: { hint?: string; cause?: unknown; data?: Record<string, unknown> } = {}): OryxError {
  return new OryxError(code, message, { ...options, hint: options.hint ?? ERROR_CODES[code] });
}
