import type { IncomingMail } from './mail.ts';

/** A reply, ready for the notify service. */
export interface Reply {
  messageId: string;
  subject: string;
  text: string;
  html: string;
  inReplyTo: string;
  references: string[];
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]!));

/** How much of the question the reply quotes. */
const QUOTE_CHARS = 4000;

/**
 * The reply to `mail` saying `answer`: `Re:` its subject, threaded (In-Reply-To its id,
 * References its chain then its id, at most the last 20), the question quoted below the answer
 * (`> ` lines in the text, a blockquote in the HTML). The answer is shown as written (no
 * Markdown rendering); the HTML part is the same text, escaped.
 *
 * @example
 * const r = buildReply(mail, 'Yes.', 'oryx.example.com');
 * r.subject // 'Re: Question'
 */
export function buildReply(mail: IncomingMail, answer: string, domain: string): Reply {
  const subject = /^re:/i.test(mail.subject.trim()) ? mail.subject.trim() : `Re: ${mail.subject.trim() || '(no subject)'}`;
  const question = mail.text.length > QUOTE_CHARS ? `${mail.text.slice(0, QUOTE_CHARS)}\n[…]` : mail.text;
  const when = mail.date ? mail.date.toUTCString() : 'an earlier date';
  const said = `On ${when}, ${mail.fromDisplay} wrote:`;
  const text = `${answer.trim()}\n\n${said}\n${question.split('\n').map((line) => (line ? `> ${line}` : '>')).join('\n')}\n`;
  const html = `<!doctype html><html><body><div style="white-space:pre-wrap">${escapeHtml(answer.trim())}</div><br>`
    + `<div>${escapeHtml(said)}</div><blockquote style="margin:0 0 0 .8ex;border-left:1px solid #ccc;padding-left:1ex;white-space:pre-wrap">${escapeHtml(question)}</blockquote></body></html>`;
  return {
    messageId: `<oryx.${crypto.randomUUID()}@${domain}>`, subject, text, html,
    inReplyTo: mail.messageId,
    references: [...mail.references.filter((r) => r !== mail.messageId), mail.messageId].slice(-20),
  };
}

/** The domain of an address (`bot@example.com` → `example.com`), for the Message-IDs the door makes. */
export function domainOf(from: string): string {
  const m = /@([^>\s]+)>?\s*$/.exec(from);
  return m ? m[1]!.toLowerCase() : 'oryx.invalid';
}
