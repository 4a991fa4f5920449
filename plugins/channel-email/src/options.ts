import { shape as s, validateOptions } from '@oryxos/schema-kit';
import { emailError } from './errors.ts';

/** How the IMAP connection is secured: TLS from the first byte (993), STARTTLS (143), or none (loopback only). */
export type ImapTls = 'implicit' | 'starttls' | 'none';

/** Options of {@link email}. */
export interface EmailOptions {
  /** The agent that answers. Default: the config's `defaultAgent`, else `assistant`. */
  agent?: string;
  /** Where mail comes in. */
  imap: {
    host: string;
    /** Default 993 with `tls: 'implicit'`, else 143. */
    port?: number;
    /** Default `implicit` on port 993, else `starttls`; `none` only for a loopback host. */
    tls?: ImapTls;
    user: string;
    /** The environment variable holding the password (read at start, masked everywhere). */
    passEnv: string;
    /** Default `INBOX`. */
    mailbox?: string;
  };
  /** The notify channel replies go out through (its server, sender and the sandbox's `smtp` list). */
  smtp: string;
  /** Who may write: addresses or `*` globs (`*@example.com`). Nobody when empty: deny by default. */
  allow: string[];
  /** Sent to a sender who is not allowed; default nothing (a refusal is audited either way). */
  refusal?: string;
  /** On the very first start: `new` answers mail arriving from now on, `all` what is in the mailbox too. Default `new`. */
  since?: 'new' | 'all';
  /** Characters of a mail's text the agent gets (the rest is cut, saying so). Default 20000. */
  maxChars?: number;
  /** Characters of text attachments the agent gets, all together. Default 20000. */
  maxAttachmentChars?: number;
  /** A larger mail is not read (recorded `failed`). Default 10 MB. */
  maxMessageBytes?: number;
  /** Mails answered at the same time. Default 4. */
  concurrency?: number;
  /** A claim whose process stops renewing it for this long is taken over. Default 60000. */
  leaseMs?: number;
  /** Tries of one mail (a process that dies mid-run is a try) before it is left `failed`. Default 3. */
  maxAttempts?: number;
  /** A scan of the mailbox at least this often, besides IDLE. Default 60000. */
  pollMs?: number;
  /** Reconnect backoff after the IMAP connection drops: first and longest wait. Default 1000 / 60000. */
  reconnect?: { baseDelayMs?: number; maxDelayMs?: number };
  /** On shutdown, runs going on get this long to finish. Default 30000. */
  graceMs?: number;
  /** Flag answered mail `\Seen` (and refused or ignored mail too). Default true. */
  markSeen?: boolean;
}

export interface ResolvedEmailOptions {
  agent?: string;
  imap: { host: string; port: number; tls: ImapTls; user: string; passEnv: string; mailbox: string };
  smtp: string;
  allow: string[];
  refusal?: string;
  since: 'new' | 'all';
  maxChars: number;
  maxAttachmentChars: number;
  maxMessageBytes: number;
  concurrency: number;
  leaseMs: number;
  maxAttempts: number;
  pollMs: number;
  reconnect: { baseDelayMs: number; maxDelayMs: number };
  graceMs: number;
  markSeen: boolean;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const GLOB = /^[^\s<>",;]+@[^\s<>",;]+$|^\*$/;

const OPTIONS = s.object({
  agent: s.string({ min: 1 }).optional(),
  imap: s.object({
    host: s.string({ min: 1 }),
    port: s.integer({ min: 1, max: 65535 }).optional(),
    tls: s.literal('implicit', 'starttls', 'none').optional(),
    user: s.string({ min: 1 }),
    passEnv: s.string().refine((v) => ENV_NAME.test(v), 'an environment variable name (the password itself never goes in the config)'),
    mailbox: s.string({ min: 1 }).optional(),
  }),
  smtp: s.string({ min: 1 }),
  allow: s.array(s.string().refine((v) => GLOB.test(v), 'an address or a glob such as *@example.com')),
  refusal: s.string({ min: 1, max: 4000 }).optional(),
  since: s.literal('new', 'all').optional(),
  maxChars: s.integer({ min: 100 }).optional(),
  maxAttachmentChars: s.integer({ min: 0 }).optional(),
  maxMessageBytes: s.integer({ min: 1024 }).optional(),
  concurrency: s.integer({ min: 1, max: 64 }).optional(),
  leaseMs: s.integer({ min: 1000 }).optional(),
  maxAttempts: s.integer({ min: 1, max: 20 }).optional(),
  pollMs: s.integer({ min: 100 }).optional(),
  reconnect: s.object({ baseDelayMs: s.integer({ min: 10 }).optional(), maxDelayMs: s.integer({ min: 10 }).optional() }).optional(),
  graceMs: s.integer({ min: 0 }).optional(),
  markSeen: s.boolean().optional(),
});

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i;

/**
 * Checks the factory's options at once: ORYX_E_EMAIL_OPTIONS names the field.
 *
 * @example
 * resolveOptions({ imap: { host: 'imap.example.com', user: 'bot@example.com', passEnv: 'IMAP_PASS' }, smtp: 'bot', allow: ['*@example.com'] });
 */
export function resolveOptions(raw: unknown): ResolvedEmailOptions {
  const o = validateOptions(OPTIONS, raw, {
    plugin: 'email', code: 'ORYX_E_EMAIL_OPTIONS',
    example: "email({ imap: { host: 'imap.example.com', user: 'bot@example.com', passEnv: 'IMAP_PASS' }, smtp: 'bot', allow: ['*@example.com'] })",
  });
  const tls: ImapTls = o.imap.tls ?? (o.imap.port === undefined || o.imap.port === 993 ? 'implicit' : 'starttls');
  if (tls === 'none' && !LOOPBACK.test(o.imap.host)) {
    throw emailError('ORYX_E_EMAIL_OPTIONS', `email(): option imap.tls "none" would send the password in clear text to ${o.imap.host}`, {
      hint: 'Use tls: "implicit" (port 993) or "starttls" (143); "none" is only for a server on this machine (127.0.0.1).', data: { field: 'imap.tls' },
    });
  }
  const reconnect = { baseDelayMs: o.reconnect?.baseDelayMs ?? 1000, maxDelayMs: o.reconnect?.maxDelayMs ?? 60_000 };
  return {
    ...(o.agent ? { agent: o.agent } : {}),
    imap: { host: o.imap.host, port: o.imap.port ?? (tls === 'implicit' ? 993 : 143), tls, user: o.imap.user, passEnv: o.imap.passEnv, mailbox: o.imap.mailbox ?? 'INBOX' },
    smtp: o.smtp,
    allow: o.allow.map((a) => a.toLowerCase()),
    ...(o.refusal ? { refusal: o.refusal } : {}),
    since: o.since ?? 'new',
    maxChars: o.maxChars ?? 20_000,
    maxAttachmentChars: o.maxAttachmentChars ?? 20_000,
    maxMessageBytes: o.maxMessageBytes ?? 10 * 1024 * 1024,
    concurrency: o.concurrency ?? 4,
    leaseMs: o.leaseMs ?? 60_000,
    maxAttempts: o.maxAttempts ?? 3,
    pollMs: o.pollMs ?? 60_000,
    reconnect: { ...reconnect, maxDelayMs: Math.max(reconnect.maxDelayMs, reconnect.baseDelayMs) },
    graceMs: o.graceMs ?? 30_000,
    markSeen: o.markSeen ?? true,
  };
}
