// What the email tests share: a kernel with the real sqlite, audit, sandbox, notify and email
// plugins on a private Dovecot and a loopback SMTP server (smtp-server, the notify plugin's
// fixture); only the model is scripted. Mail is written as RFC 5322 text.
import { definePlugin, type Plugin, type RunContext } from '@oryxos/kernel';
import { scripted, testKernel, type ScriptStep, type TestAgent, type TestKernel } from '@oryxos/kernel/testing';
import type { ChatRequest } from '@oryxos/provider-spec';
import audit from '@oryxos/plugin-audit';
import notify from '@oryxos/plugin-notify';
import sandbox from '@oryxos/plugin-sandbox';
import sqlite from '@oryxos/plugin-sqlite';
import { startSmtp, type TestSmtp } from '../../notify/test/smtp-server.ts';
import email, { type EmailOptions, type MailRow } from '../src/index.ts';
import { startDovecot, type TestDovecot } from './dovecot.ts';

export const PASS_ENV = 'ORYX_TEST_IMAP_PASS';

/** The text of the last user message of a model request. */
export const lastUser = (req: ChatRequest) => [...req.messages].reverse().find((m) => m.role === 'user')?.content ?? '';

/** A model that answers every mail with `Answer: <its first line after the subject>`. */
export const answering = (n = 20, extra: Partial<ScriptStep> = {}) => scripted(Array.from({ length: n }, () => (req: ChatRequest) => ({
  text: `Answer: ${lastUser(req).split('\n').slice(2).find(Boolean) ?? ''}`, ...extra,
})));

/** Records the user and door of every run. */
export function runWatch(): Plugin & { runs: Pick<RunContext, 'user' | 'door' | 'sessionId'>[] } {
  const runs: Pick<RunContext, 'user' | 'door' | 'sessionId'>[] = [];
  return Object.assign(definePlugin({ name: 'run-watch', hooks: { async runStart(run) { runs.push({ user: run.user, door: run.door, sessionId: run.sessionId }); } } }), { runs });
}

export interface Rig { t: TestKernel; imap: TestDovecot; smtp: TestSmtp; rows(): Promise<MailRow[]>; close(): Promise<void> }

/** Starts Dovecot, SMTP and a kernel with the email door started. */
export async function rig(options: { plugins?: Plugin[]; model?: Plugin; email?: Partial<EmailOptions>; agents?: Record<string, TestAgent> } = {}): Promise<Rig> {
  const imap = await startDovecot();
  const smtp = await startSmtp();
  process.env[PASS_ENV] = imap.pass;
  const t = await testKernel({
    plugins: [
      options.model ?? answering(), sqlite(), audit(), sandbox({ smtp: { allow: [smtp.hostPort] } }),
      notify({ channels: [{ name: 'bot', host: '127.0.0.1', port: smtp.port, from: 'OryxOS <bot@oryx.test>', to: ['bot@oryx.test'] }], retry: { attempts: 1 } }),
      email({
        imap: { host: imap.host, port: imap.port, tls: 'none', user: imap.user, passEnv: PASS_ENV },
        smtp: 'bot', allow: ['*@example.com'], pollMs: 500, leaseMs: 2000, reconnect: { baseDelayMs: 100, maxDelayMs: 400 }, ...options.email,
      }),
      ...(options.plugins ?? []),
    ],
    ...(options.agents ? { agents: options.agents } : {}),
  });
  await t.kernel.startDoors(['email']);
  return {
    t, imap, smtp,
    rows: () => t.kernel.service('database').query<MailRow>('SELECT * FROM email_messages ORDER BY received_at, message_id'),
    async close() {
      await t.close();
      await imap.close();
      await smtp.close();
    },
  };
}

/** A mail as text. */
export function mail(m: { from?: string; subject?: string; id: string; body?: string; inReplyTo?: string; references?: string[]; headers?: Record<string, string> }): string {
  return [
    `From: ${m.from ?? 'Alice <alice@example.com>'}`, 'To: bot@oryx.test', `Subject: ${m.subject ?? 'Question'}`, `Message-ID: ${m.id}`,
    'Date: Tue, 01 Dec 2026 08:00:00 +0000',
    ...(m.inReplyTo ? [`In-Reply-To: ${m.inReplyTo}`] : []), ...(m.references ? [`References: ${m.references.join(' ')}`] : []),
    ...Object.entries(m.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    'Content-Type: text/plain; charset=utf-8', '', m.body ?? 'What is the answer?', '',
  ].join('\r\n');
}

/** Waits until `check` passes (polling), or fails with its last error. */
export async function until<T>(check: () => Promise<T | undefined | false> | T | undefined | false, ms = 15_000, what = 'the condition'): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
