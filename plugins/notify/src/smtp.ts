import type { NotifyErrorCode } from './errors.ts';
import type { Channel } from './channel.ts';

/** One mail; `to` replaces the channel's recipients, the rest threads a reply. */
export interface Mail {
  subject: string;
  text: string;
  to?: string[];
  html?: string;
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
  headers?: Record<string, string>;
}

/** What one delivery attempt gave. */
export type Attempt =
  | { ok: true; messageId?: string; rejected: string[] }
  | { ok: false; code: NotifyErrorCode; message: string; temporary: boolean };

/** What nodemailer puts on its errors. */
interface SmtpError { code?: string; responseCode?: number; response?: string; command?: string; rejected?: string[]; message?: string }

/**
 * One SMTP delivery over a fresh connection (no pool: a channel sends rarely), with
 * nodemailer loaded on first use. Never throws: a failure is classified.
 */
export async function deliver(channel: Channel, pass: string | undefined, mail: Mail, timeoutMs: number): Promise<Attempt> {
  const { createTransport } = (await import('nodemailer')).default;
  const transport = createTransport({
    host: channel.host, port: channel.port, secure: channel.secure, requireTLS: channel.requireTLS,
    ...(channel.user ? { auth: { user: channel.user, pass: pass ?? '' } } : {}),
    connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs, dnsTimeout: timeoutMs,
    logger: false, debug: false,
  });
  try {
    const info = await transport.sendMail({
      from: channel.from, to: mail.to ?? channel.to, subject: mail.subject, text: mail.text,
      ...(mail.html !== undefined ? { html: mail.html } : {}), ...(mail.messageId ? { messageId: mail.messageId } : {}),
      ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}), ...(mail.references?.length ? { references: mail.references } : {}),
      ...(mail.headers ? { headers: mail.headers } : {}),
    });
    return { ok: true, messageId: info.messageId, rejected: (info.rejected ?? []).map(String) };
  } catch (error) {
    return classify(error as SmtpError, channel);
  } finally {
    transport.close();
  }
}

const CONNECT = /\b(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|EPIPE|ETIMEDOUT|ECONNABORTED)\b/;

/**
 * Names what failed — DNS, connect, TLS, auth, a refused recipient or the message — and
 * whether it is worth retrying: connections that failed, DNS that may come back, and 4xx
 * answers are; 5xx answers, bad credentials and TLS failures are not.
 */
export function classify(e: SmtpError, channel: Channel): Attempt & { ok: false } {
  const raw = e.message ?? String(e);
  const transient = e.responseCode !== undefined && e.responseCode >= 400 && e.responseCode < 500;
  const at = `${channel.host}:${channel.port}`;
  if (e.code === 'EDNS') {
    return { ok: false, code: 'ORYX_E_NOTIFY_DNS', message: `DNS: ${channel.host} could not be resolved (${raw})`, temporary: /EAI_AGAIN|ETIMEOUT/.test(raw) };
  }
  if (e.code === 'EAUTH') {
    return { ok: false, code: 'ORYX_E_NOTIFY_AUTH', message: `auth: ${at} refused user ${JSON.stringify(channel.user ?? '')} (${raw})`, temporary: transient };
  }
  if (e.code === 'ETLS' || /\b(SSL|TLS)\b|certificate|wrong version number|handshake/i.test(raw)) {
    return { ok: false, code: 'ORYX_E_NOTIFY_TLS', message: `TLS: the secure connection to ${at} failed (${raw})`, temporary: false };
  }
  if (e.code === 'EENVELOPE') {
    const who = e.rejected?.length ? e.rejected.join(', ') : e.command === 'MAIL FROM' ? channel.from : 'a recipient';
    return { ok: false, code: 'ORYX_E_NOTIFY_REJECTED', message: `rejected recipient: ${at} refused ${who} (${raw})`, temporary: transient };
  }
  if (e.code === 'ECONNECTION' || e.code === 'ETIMEDOUT' || e.code === 'ESOCKET' || CONNECT.test(raw)) {
    return { ok: false, code: 'ORYX_E_NOTIFY_CONNECT', message: `connect: no SMTP server answered at ${at} (${raw})`, temporary: true };
  }
  return { ok: false, code: 'ORYX_E_NOTIFY_SEND', message: `send: ${at} refused the message (${raw})`, temporary: transient };
}
