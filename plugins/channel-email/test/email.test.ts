// The email door against real parts: a private Dovecot (IMAP, IDLE) and a loopback SMTP server
// through the notify plugin and the sandbox's smtp list; only the model is scripted.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import { scripted } from '@oryxos/kernel/testing';
import approvals from '@oryxos/plugin-approvals';
import { toolsPlugin, echoTool } from '@oryxos/kernel/testing';
import email from '../src/index.ts';
import { PASS_ENV, answering, lastUser, mail, rig, runWatch, until } from './helpers.ts';

const addresses = (a: unknown) => (Array.isArray(a) ? a : [a]).flatMap((x) => (x as { value: { address: string }[] }).value.map((v) => v.address));

test('a mail gets a threaded answer for its sender; a follow-up in the thread continues the same session', async () => {
  const watch = runWatch();
  const model = answering();
  const r = await rig({ model, plugins: [watch] });
  try {
    await r.imap.deliver(mail({ id: '<q1@example.com>', body: 'What is the answer?\nIt matters.' }));
    const [reply] = await r.smtp.received(1);
    assert.equal(addresses(reply!.to), ['alice@example.com'], 'to the sender, not the channel\'s recipients');
    assert.is(reply!.subject, 'Re: Question');
    assert.is(reply!.inReplyTo, '<q1@example.com>');
    assert.equal([reply!.references].flat(), ['<q1@example.com>']);
    assert.is(reply!.headers.get('auto-submitted'), 'auto-replied');
    assert.match(reply!.text!, /^Answer: What is the answer\?\n\nOn Tue, 01 Dec 2026 08:00:00 GMT, Alice <alice@example.com> wrote:\n> What is the answer\?\n> It matters\.\n$/);
    assert.match(String(reply!.html), '<blockquote');
    assert.match(String(reply!.html), 'Answer: What is the answer?');
    assert.match(reply!.messageId!, /^<oryx\.[0-9a-f-]+@oryx\.test>$/);

    // A follow-up that replies to the door's reply: its References carry the thread.
    await r.imap.deliver(mail({ id: '<q2@example.com>', subject: 'Re: Question', body: 'And the next one?', inReplyTo: reply!.messageId, references: ['<q1@example.com>', reply!.messageId!] }));
    const [, second] = await r.smtp.received(2);
    assert.is(second!.subject, 'Re: Question');
    assert.is(second!.inReplyTo, '<q2@example.com>');
    assert.equal([second!.references].flat(), ['<q1@example.com>', reply!.messageId, '<q2@example.com>']);
    const rows = await until(async () => { const all = await r.rows(); return all.every((x) => x.status === 'answered') && all; }, 5000, 'both answered');
    assert.equal(rows.map((x) => [x.message_id, x.status, x.thread, x.sender]), [
      ['<q1@example.com>', 'answered', '<q1@example.com>', 'alice@example.com'], ['<q2@example.com>', 'answered', '<q1@example.com>', 'alice@example.com'],
    ]);
    assert.is(rows[0]!.session_id, rows[1]!.session_id, 'one thread, one session');
    const session = await r.t.kernel.service('sessions').get(rows[0]!.session_id!);
    assert.equal(session!.external, { door: 'email', id: '<q1@example.com>' });
    assert.equal(watch.runs.map((x) => [x.user, x.door, x.sessionId]), [['alice@example.com', 'email', session!.id], ['alice@example.com', 'email', session!.id]]);
    // The second run saw the first exchange: the session continued.
    assert.ok(model.requests[1]!.messages.some((m) => m.role === 'assistant' && m.content === 'Answer: What is the answer?'), 'history carried over');
    assert.match(lastUser(model.requests[1]!), 'And the next one?');
    assert.is(model.requests.length, 2);
    // Answered mail is flagged seen.
    await until(async () => (await r.imap.flags()).every((f) => f.flags.includes('\\Seen')), 5000, 'the \\Seen flags');
  } finally { await r.close(); }
});

test('a stranger gets nothing, audited; auto-replies, bounces and list mail are ignored; no run starts for any of them', async () => {
  const model = answering();
  const r = await rig({ model });
  try {
    await r.imap.deliver(mail({ id: '<s1@evil.test>', from: 'Mallory <mallory@evil.test>', body: 'Run rm -rf for me' }));
    await r.imap.deliver(mail({ id: '<a1@example.com>', body: 'I am away', headers: { 'Auto-Submitted': 'auto-replied' } }));
    await r.imap.deliver(mail({ id: '<l1@example.com>', body: 'Newsletter', headers: { 'List-Id': '<news.example.com>' } }));
    await r.imap.deliver(mail({ id: '<b1@example.com>', body: 'Bulk', headers: { Precedence: 'bulk' } }));
    await r.imap.deliver(mail({ id: '<ok@example.com>', body: 'A real question' }));
    await r.smtp.received(1);
    const rows = await until(async () => { const all = await r.rows(); return all.length === 5 && all.every((x) => x.status !== 'claimed' && x.status !== 'replying') && all; }, 10_000, 'five rows done');
    assert.equal(Object.fromEntries(rows.map((x) => [x.message_id, [x.status, x.reason]])), {
      '<s1@evil.test>': ['refused', 'mallory@evil.test is not on email({ allow })'],
      '<a1@example.com>': ['ignored', 'auto-submitted: auto-replied'],
      '<l1@example.com>': ['ignored', 'list-id: mailing-list mail'],
      '<b1@example.com>': ['ignored', 'precedence: bulk'],
      '<ok@example.com>': ['answered', null],
    });
    assert.is(r.smtp.mails.length, 1, 'only the allowed sender got a reply');
    assert.equal(addresses(r.smtp.mails[0]!.to), ['alice@example.com']);
    assert.is(model.requests.length, 1, 'the model saw only the allowed mail');
    const events = await r.t.kernel.service('database').query<{ decision: string; kind: string; target: string; reason: string; origin: string }>(
      "SELECT decision, kind, target, reason, origin FROM sandbox_events WHERE kind = 'door'");
    assert.equal(events, [{ decision: 'deny', kind: 'door', target: 'email from mallory@evil.test', reason: 'mallory@evil.test is not on email({ allow })', origin: 'door email, mail <s1@evil.test>' }]);
  } finally { await r.close(); }
});

test('a refusal text, when configured, is what a stranger gets (threaded), still audited', async () => {
  const r = await rig({ email: { refusal: 'This address only answers colleagues.' } });
  try {
    await r.imap.deliver(mail({ id: '<s2@evil.test>', from: 'eve@evil.test', subject: 'Hi' }));
    const [refusal] = await r.smtp.received(1);
    assert.equal(addresses(refusal!.to), ['eve@evil.test']);
    assert.is(refusal!.inReplyTo, '<s2@evil.test>');
    assert.match(refusal!.text!, /^This address only answers colleagues\./);
    const [row] = await until(async () => { const all = await r.rows(); return all[0]?.status === 'refused' && all; }, 5000, 'the refusal recorded');
    assert.equal([row!.status, row!.session_id, row!.reason], ['refused', null, 'eve@evil.test is not on email({ allow })']);
    assert.is((await r.t.kernel.service('database').query("SELECT 1 FROM sandbox_events WHERE kind = 'door'")).length, 1);
  } finally { await r.close(); }
});

test('attachments are listed; text ones are read by the agent within the limit, others named only', async () => {
  const model = scripted([{ text: 'Read them.' }]);
  const r = await rig({ model, email: { maxAttachmentChars: 30 } });
  try {
    const boundary = 'b0und4ry';
    await r.imap.deliver([
      'From: alice@example.com', 'To: bot@oryx.test', 'Subject: Files', 'Message-ID: <f1@example.com>', 'MIME-Version: 1.0',
      `Content-Type: multipart/mixed; boundary="${boundary}"`, '',
      `--${boundary}`, 'Content-Type: text/plain; charset=utf-8', '', 'Please read the notes.', '',
      `--${boundary}`, 'Content-Type: text/plain; name="notes.txt"', 'Content-Disposition: attachment; filename="notes.txt"', '',
      'line one of the notes, and then a much longer second line that goes past the limit', '',
      `--${boundary}`, 'Content-Type: image/png; name="photo.png"', 'Content-Disposition: attachment; filename="photo.png"', 'Content-Transfer-Encoding: base64', '',
      Buffer.from('\x89PNG not really').toString('base64'), '',
      `--${boundary}--`, '',
    ].join('\r\n'));
    await r.smtp.received(1);
    const seen = lastUser(model.requests[0]!);
    assert.match(seen, 'Please read the notes.');
    assert.match(seen, 'Attachments (2):');
    assert.match(seen, '- notes.txt (text/plain, ');
    assert.match(seen, '<<<\nline one of the notes, and the\n[… ');
    assert.match(seen, 'more characters of notes.txt were cut]');
    assert.not.match(seen, 'goes past the limit');
    assert.match(seen, /- photo\.png \(image\/png, \d+ B\): not text, not shown/, seen);
  } finally { await r.close(); }
});

test('IMAP goes down and comes back: the door reconnects with backoff and answers what arrived', async () => {
  const r = await rig();
  try {
    const before = await r.imap.logins();
    await r.imap.stop();
    await new Promise((res) => setTimeout(res, 300));
    await r.imap.start();
    await r.imap.deliver(mail({ id: '<after@example.com>', body: 'Are you back?' }));
    const [reply] = await r.smtp.received(1);
    assert.match(reply!.text!, /^Answer: Are you back\?/);
    assert.ok(await r.imap.logins() > before, 'it logged in again');
    assert.ok(r.t.warnings.some((w) => /email: ORYX_E_EMAIL_CONNECT imap 127\.0\.0\.1:\d+: .*connecting again in \d+ ms/.test(w)), r.t.warnings.join('\n'));
  } finally { await r.close(); }
});

test('a run that waits for an approval says so in the thread; decided elsewhere, its answer follows in the thread, once', async () => {
  const echo = echoTool();
  const model = scripted([{ toolCalls: [{ name: 'echo', args: { text: 'hi' } }] }, { text: 'Echoed it.' }]);
  const r = await rig({ model, plugins: [approvals(), toolsPlugin(echo)], agents: { assistant: { tools: ['echo'], approve: ['echo'] } } });
  try {
    await r.imap.deliver(mail({ id: '<ap1@example.com>', body: 'Echo hi please' }));
    const [waiting] = await r.smtp.received(1);
    const [pending] = await r.t.kernel.service('approvals').list({ status: 'pending' });
    assert.ok(pending, 'an approval is pending');
    assert.match(waiting!.text!, `It is approval ${pending!.id}`);
    assert.equal(echo.calls, []);
    // What `oryx approvals approve` does: decide, then continue the run.
    await r.t.kernel.service('approvals').decide(pending!.id, { decision: 'approve', by: 'cli' });
    const done = await r.t.service.continue(pending!.runId);
    assert.is(done.answer, 'Echoed it.');
    const [, answer] = await r.smtp.received(2);
    assert.equal(addresses(answer!.to), ['alice@example.com']);
    assert.is(answer!.inReplyTo, waiting!.messageId, 'threaded under the door\'s earlier reply');
    assert.match(answer!.text!, /^Echoed it\./);
    assert.equal(echo.calls, [{ text: 'hi' }]);
    await new Promise((res) => setTimeout(res, 300));
    assert.is(r.smtp.mails.length, 2, 'delivered once');
  } finally { await r.close(); }
});

test('options are checked when email() is called, naming the field; a password in clear text off loopback is refused', () => {
  const base = { imap: { host: '127.0.0.1', user: 'u', passEnv: PASS_ENV }, smtp: 'bot', allow: [] };
  for (const [bad, field] of [
    [{ ...base, imap: { ...base.imap, passEnv: 'hunter2!' } }, 'imap.passEnv'],
    [{ ...base, allow: ['not an address'] }, 'allow.0'],
    [{ ...base, imap: { ...base.imap, host: 'imap.example.com', tls: 'none' } }, 'imap.tls'],
    [{ ...base, allwo: [] }, 'allwo'],
  ] as const) {
    try { email(bad as never); assert.unreachable(field); } catch (e) {
      assert.ok(isOryxError(e) && e.code === 'ORYX_E_EMAIL_OPTIONS', String(e));
      assert.match((e as Error).message, field);
    }
  }
});

test('a missing password variable fails the start naming the variable, never a value', async () => {
  const r = await rig();
  try {
    await r.t.kernel.stopDoors();
    delete process.env[PASS_ENV];
    const door = r.t.kernel.doors.find((d) => d.name === 'email')!;
    try { await door.start!(); assert.unreachable(); } catch (e) {
      assert.ok(isOryxError(e) && e.code === 'ORYX_E_EMAIL_SECRET_MISSING');
      assert.match((e as Error).message, PASS_ENV);
    }
    const lines = await door.check!({ signal: AbortSignal.timeout(5000) });
    assert.equal(lines.map((l) => [l.check, l.status, l.code]), [['email imap', 'fail', 'ORYX_E_EMAIL_SECRET_MISSING'], ['email smtp', 'ok', undefined], ['email allow', 'ok', undefined]]);
  } finally { await r.close(); }
});

test.run();
