import type { ImapFlow, ImapFlowOptions } from 'imapflow';
import type { OryxError } from '@oryxos/provider-spec';
import { emailError } from './errors.ts';
import type { ResolvedEmailOptions } from './options.ts';

/** A new IMAP client for the door's account (imapflow, loaded on first use); IDLE is the door's to start. */
export async function imapClient(o: ResolvedEmailOptions['imap'], pass: string, timeoutMs = 30_000): Promise<ImapFlow> {
  const { ImapFlow } = await import('imapflow');
  const options: ImapFlowOptions = {
    host: o.host, port: o.port, secure: o.tls === 'implicit',
    ...(o.tls === 'starttls' ? { doSTARTTLS: true } : o.tls === 'none' ? { doSTARTTLS: false } : {}),
    auth: { user: o.user, pass }, logger: false, disableAutoIdle: true,
    connectionTimeout: timeoutMs, greetingTimeout: timeoutMs,
  };
  const client = new ImapFlow(options);
  // An unhandled 'error' event would end the process; the door learns of it from 'close'.
  client.on('error', () => {});
  return client;
}

interface ImapError { code?: string; authenticationFailed?: boolean; serverResponseCode?: string; responseText?: string; message?: string; cause?: unknown }

/**
 * What failed, in this package's codes: the login refused, the mailbox missing, TLS, or no
 * server at all. The password never appears (imapflow does not echo it).
 *
 * @example
 * imapFailure(e, options.imap) // ORYX_E_EMAIL_AUTH: imap 127.0.0.1:143 refused user "bot@…"
 */
export function imapFailure(error: unknown, o: ResolvedEmailOptions['imap']): OryxError {
  const e = (error ?? {}) as ImapError;
  const at = `imap ${o.host}:${o.port}`;
  const text = e.responseText ?? e.message ?? String(error);
  if (e.authenticationFailed) return emailError('ORYX_E_EMAIL_AUTH', `${at} refused user ${JSON.stringify(o.user)} (${text})`, { cause: error });
  if (e.serverResponseCode === 'NONEXISTENT' || /mailbox doesn't exist|no such mailbox|nonexistent/i.test(text)) {
    return emailError('ORYX_E_EMAIL_MAILBOX', `${at} has no mailbox ${JSON.stringify(o.mailbox)} (${text})`, { cause: error });
  }
  if (/\b(SSL|TLS)\b|certificate|wrong version number|handshake|STARTTLS/i.test(`${e.code ?? ''} ${text}`)) {
    return emailError('ORYX_E_EMAIL_TLS', `${at}: the secure connection failed (${text})`, { cause: error });
  }
  return emailError('ORYX_E_EMAIL_CONNECT', `${at}: ${e.code ? `${e.code} ` : ''}${text}`, { cause: error });
}
