/**
 * A mail as the door reads it (mailparser, loaded with the first mail): who wrote, its ids and
 * thread, its text and attachments; whether it is a mail to answer at all (RFC 3834: no
 * auto-replies, bounces or list mail); and whether its sender may talk to the agent.
 */

/** One attachment: text ones carry their text for the agent. */
export interface Attachment { name: string; type: string; bytes: number; text?: string }

/** What the door needs of a mail. */
export interface IncomingMail {
  messageId: string;
  /** The From address, lowercase. */
  from: string;
  /** `Name <address>`, as shown in the quote line. */
  fromDisplay: string;
  subject: string;
  date?: Date;
  inReplyTo?: string;
  /** Oldest first. */
  references: string[];
  text: string;
  attachments: Attachment[];
  /** Lowercase header name → value, for the ignore rules. */
  headers: Map<string, string>;
}

/** Types whose content is text the agent can read. */
const TEXT_TYPES = /^(text\/|application\/(json|xml|x-yaml|yaml|csv|x-sh|javascript|x-ndjson)\b)/i;
const MESSAGE_ID = /^<[^<>\s]+@[^<>\s]+>$/;

function ids(value: unknown): string[] {
  const all = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/\s+/) : [];
  return all.map(String).map((v) => (v.startsWith('<') ? v : `<${v}>`)).filter((v) => MESSAGE_ID.test(v));
}

/**
 * Parses a raw mail. A mail without a usable Message-ID gets one from its place in the mailbox,
 * so it is still claimed once.
 *
 * @example
 * const mail = await parseMail(source, '<1.7@imap.invalid>');
 */
export async function parseMail(source: Buffer, fallbackId: string): Promise<IncomingMail> {
  const { simpleParser } = await import('mailparser');
  const m = await simpleParser(source, { skipHtmlToText: false, skipTextToHtml: true, skipImageLinks: true });
  const first = (Array.isArray(m.from) ? m.from[0] : m.from)?.value[0];
  const headers = new Map<string, string>();
  for (const [key, value] of m.headers) headers.set(key.toLowerCase(), typeof value === 'string' ? value : JSON.stringify(value));
  for (const line of m.headerLines) if (!headers.has(line.key.toLowerCase())) headers.set(line.key.toLowerCase(), line.line);
  const [own] = ids(m.messageId);
  const attachments: Attachment[] = m.attachments.map((a) => ({
    name: a.filename ?? 'unnamed', type: a.contentType, bytes: a.size,
    ...(TEXT_TYPES.test(a.contentType) ? { text: a.content.toString('utf8') } : {}),
  }));
  const address = (first?.address ?? '').toLowerCase();
  return {
    messageId: own ?? fallbackId,
    from: address,
    fromDisplay: first?.name ? `${first.name} <${address}>` : address,
    subject: m.subject ?? '',
    ...(m.date ? { date: m.date } : {}),
    ...(ids(m.inReplyTo)[0] ? { inReplyTo: ids(m.inReplyTo)[0] } : {}),
    references: ids(m.references),
    text: (m.text ?? '').replace(/\r\n/g, '\n').trim(),
    attachments,
    headers,
  };
}

/**
 * Why a mail is not one to answer, or undefined: an auto-reply or auto-generated mail
 * (`Auto-Submitted` other than `no`), a bounce (a delivery report, or a null Return-Path),
 * bulk or list mail (`Precedence`, `List-Id`, `List-Unsubscribe`), or the door's own address.
 *
 * @example
 * ignoreReason(mail, 'bot@example.com') // 'auto-submitted: auto-replied'
 */
export function ignoreReason(mail: IncomingMail, self: string): string | undefined {
  const h = mail.headers;
  const auto = h.get('auto-submitted')?.trim().toLowerCase();
  if (auto && !auto.startsWith('no')) return `auto-submitted: ${auto}`;
  const precedence = h.get('precedence')?.trim().toLowerCase();
  if (precedence && /^(bulk|junk|list|auto_reply)\b/.test(precedence)) return `precedence: ${precedence}`;
  if (h.has('list-id')) return 'list-id: mailing-list mail';
  if (h.has('list-unsubscribe')) return 'list-unsubscribe: mailing-list mail';
  if (h.has('x-autoreply') || h.has('x-autorespond')) return 'an auto-reply (x-autoreply)';
  if (/multipart\/report/i.test(h.get('content-type') ?? '')) return 'a delivery report (bounce)';
  if (/^\s*<>\s*$/.test(h.get('return-path') ?? '')) return 'a null return path (bounce)';
  if (!mail.from) return 'no From address';
  if (mail.from === self.toLowerCase()) return 'sent by this door\'s own address';
  return undefined;
}

/**
 * Whether `address` is on the allow-list: an exact address, a `*` glob (`*@example.com`,
 * `*.example.com` parts), or `*` for anyone. Case does not matter.
 *
 * @example
 * allowed('Ann@Example.com', ['*@example.com']) // true
 */
export function allowed(address: string, allow: readonly string[]): boolean {
  const a = address.toLowerCase();
  return allow.some((pattern) => {
    const re = new RegExp(`^${pattern.toLowerCase().split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^@\\s]*')}$`);
    return pattern === '*' ? true : re.test(a);
  });
}

/** Cuts `text` to `max` characters, saying how much was left out. */
function cut(text: string, max: number, what: string): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[… ${text.length - max} more characters of ${what} were cut]`;
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * What the agent reads: the subject, the text (cut to `maxChars`), and the attachments listed,
 * with the text of text ones (all of them together cut to `maxAttachmentChars`).
 *
 * @example
 * agentMessage(mail, { maxChars: 20000, maxAttachmentChars: 20000 })
 */
export function agentMessage(mail: IncomingMail, limits: { maxChars: number; maxAttachmentChars: number }): string {
  const parts = [`Subject: ${mail.subject || '(none)'}`, '', cut(mail.text || '(no text)', limits.maxChars, 'the mail')];
  if (mail.attachments.length) {
    parts.push('', `Attachments (${mail.attachments.length}):`);
    let left = limits.maxAttachmentChars;
    for (const a of mail.attachments) {
      if (a.text === undefined) {
        parts.push(`- ${a.name} (${a.type}, ${size(a.bytes)}): not text, not shown`);
      } else if (left <= 0) {
        parts.push(`- ${a.name} (${a.type}, ${size(a.bytes)}): text, not shown (the attachments' limit of ${limits.maxAttachmentChars} characters is used up)`);
      } else {
        const shown = cut(a.text, left, a.name);
        left -= Math.min(a.text.length, left);
        parts.push(`- ${a.name} (${a.type}, ${size(a.bytes)}):`, '<<<', shown, '>>>');
      }
    }
  }
  return parts.join('\n');
}

/** The thread a mail belongs to: the first of its References, else the mail it answers, else itself. */
export function threadOf(mail: IncomingMail, threadOfReply: string | undefined): string {
  return mail.references[0] ?? threadOfReply ?? mail.inReplyTo ?? mail.messageId;
}
