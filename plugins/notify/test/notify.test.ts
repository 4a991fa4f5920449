import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { NotifyMessage } from '@oryxos/contracts';
import { scripted, testKernel, type TestKernel } from '@oryxos/kernel/testing';
import audit from '@oryxos/plugin-audit';
import sandbox from '@oryxos/plugin-sandbox';
import sqlite from '@oryxos/plugin-sqlite';
import notify, { env, type ChannelInput, type NotificationRow, type NotifyOptions } from '../src/index.ts';
import { closedPort, startSmtp } from './smtp-server.ts';

const PASS = 'correct-horse-battery-staple-42';
const WRONG = 'wrong-secret-password-99';

function channel(port: number, extra: Partial<ChannelInput> = {}): ChannelInput {
  return { name: 'ops', host: '127.0.0.1', port, from: 'OryxOS <bot@oryx.test>', to: ['me@oryx.test'], ...extra };
}

/** A kernel with sqlite, audit, the real sandbox allowing `allow`, and notify. */
function kernel(allow: string[], options: NotifyOptions, script = scripted([])): Promise<TestKernel> {
  return testKernel({
    plugins: [script, sqlite(), audit(), sandbox({ smtp: { allow } }), notify({ retry: { attempts: 3, baseDelayMs: 50 }, ...options })],
    agents: { assistant: { tools: ['notify'] } },
  });
}

const rows = (t: TestKernel) => t.kernel.service('database').query<NotificationRow>('SELECT * FROM notifications ORDER BY id');

test('a mail to a server without auth arrives with its subject and body; the row says sent, one attempt, the message id', async () => {
  const smtp = await startSmtp();
  const t = await kernel([smtp.hostPort], { channels: [channel(smtp.port)] });
  try {
    const r = await t.kernel.service('notify').send({ channel: 'ops', subject: 'Nightly: ok', body: 'All 12 checks passed.\nSee you tomorrow.' });
    assert.is(r.status, 'sent');
    const [mail] = await smtp.received(1);
    assert.is(mail!.subject, 'Nightly: ok');
    assert.is(mail!.text!.trim(), 'All 12 checks passed.\nSee you tomorrow.');
    assert.is(mail!.from!.value[0]!.address, 'bot@oryx.test');
    assert.equal((Array.isArray(mail!.to) ? mail!.to : [mail!.to!]).flatMap((a) => a.value.map((v) => v.address)), ['me@oryx.test']);
    const [row] = await rows(t);
    assert.equal([row!.status, row!.attempts, row!.channel, row!.subject], ['sent', 1, 'ops', 'Nightly: ok']);
    assert.is(row!.message_id, r.messageId);
    assert.is(row!.message_id, mail!.messageId);
  } finally {
    await t.close();
    await smtp.close();
  }
});

test('with auth: the right password (from env) sends; a wrong one fails once with an auth error, no retry storm, and the password is nowhere', async () => {
  const smtp = await startSmtp({ user: 'bot', pass: PASS });
  process.env.ORYX_TEST_SMTP_PASS = PASS;
  process.env.ORYX_TEST_SMTP_WRONG = WRONG;
  const t = await kernel([smtp.hostPort], {
    channels: [channel(smtp.port, { user: 'bot', pass: env('ORYX_TEST_SMTP_PASS') }), channel(smtp.port, { name: 'bad', user: 'bot', pass: env('ORYX_TEST_SMTP_WRONG') })],
  });
  try {
    const notifier = t.kernel.service('notify');
    assert.is((await notifier.send({ channel: 'ops', subject: 's', body: 'b' })).status, 'sent');
    await smtp.received(1);
    const bad = await notifier.send({ channel: 'bad', subject: 's', body: 'b' });
    assert.is(bad.status, 'failed');
    assert.is(bad.error!.code, 'ORYX_E_NOTIFY_AUTH');
    assert.match(bad.error!.message, 'auth: 127.0.0.1');
    assert.is(bad.attempts, 1, 'not retried');
    assert.equal(smtp.logins.map((l) => l.ok), [true, false], 'one failed login only');
    const all = JSON.stringify({ rows: await rows(t), channels: await notifier.channels(), warnings: t.warnings, bad,
      audit: await t.kernel.service('database').query('SELECT * FROM sandbox_events') });
    for (const secret of [PASS, WRONG, Buffer.from(`\0bot\0${WRONG}`).toString('base64')]) assert.not.match(all, secret);
    assert.match(JSON.stringify(await notifier.channels()), 'env ORYX_TEST_SMTP_WRONG');
  } finally {
    delete process.env.ORYX_TEST_SMTP_PASS;
    delete process.env.ORYX_TEST_SMTP_WRONG;
    await t.close();
    await smtp.close();
  }
});

test('a server that is down: retried with backoff, then failed with a connect error; a missing password variable fails without connecting', async () => {
  const port = await closedPort();
  const t = await kernel([`127.0.0.1:${port}`], { channels: [channel(port), channel(port, { name: 'nopass', user: 'bot', pass: env('ORYX_TEST_UNSET_VAR') })] });
  try {
    const started = Date.now();
    const r = await t.kernel.service('notify').send({ channel: 'ops', subject: 's', body: 'b' });
    assert.is(r.status, 'failed');
    assert.is(r.error!.code, 'ORYX_E_NOTIFY_CONNECT');
    assert.match(r.error!.message, `127.0.0.1:${port}`);
    assert.is(r.attempts, 3);
    assert.ok(Date.now() - started >= 100, 'waited between attempts');
    const missing = await t.kernel.service('notify').send({ channel: 'nopass', subject: 's', body: 'b' });
    assert.equal([missing.status, missing.error!.code, missing.attempts], ['failed', 'ORYX_E_NOTIFY_SECRET_MISSING', 0]);
    assert.match(missing.error!.message, 'ORYX_TEST_UNSET_VAR');
    assert.equal((await rows(t)).map((x) => [x.status, x.attempts, x.error_code]), [['failed', 3, 'ORYX_E_NOTIFY_CONNECT'], ['failed', 0, 'ORYX_E_NOTIFY_SECRET_MISSING']]);
  } finally {
    await t.close();
  }
});

test('a host:port the sandbox does not list: denied, audited, and the server never sees a connection', async () => {
  const smtp = await startSmtp();
  const t = await kernel(['127.0.0.1:1'], { channels: [channel(smtp.port)] });
  try {
    const r = await t.kernel.service('notify').send({ channel: 'ops', subject: 's', body: 'b', origin: 'a test' });
    assert.is(r.status, 'denied');
    assert.is(r.error!.code, 'ORYX_E_NOTIFY_DENIED');
    assert.is(r.attempts, 0);
    assert.is(smtp.connections, 0);
    const [row] = await rows(t);
    assert.equal([row!.status, row!.error_code], ['denied', 'ORYX_E_NOTIFY_DENIED']);
    const events = await t.kernel.service('database').query<{ kind: string; target: string; origin: string; decision: string }>('SELECT kind, target, origin, decision FROM sandbox_events');
    assert.equal(events, [{ kind: 'smtp', target: `smtp ${smtp.hostPort}`, origin: 'notify channel ops for a test', decision: 'deny' }]);
  } finally {
    await t.close();
    await smtp.close();
  }
});

test('a refused recipient is named; other recipients still get the mail', async () => {
  const smtp = await startSmtp({ rejectTo: /^nobody@/ });
  const t = await kernel([smtp.hostPort], { channels: [channel(smtp.port, { to: ['nobody@oryx.test'] }), channel(smtp.port, { name: 'mixed', to: ['nobody@oryx.test', 'me@oryx.test'] })] });
  try {
    const r = await t.kernel.service('notify').test('ops');
    assert.equal([r.status, r.error!.code, r.attempts], ['failed', 'ORYX_E_NOTIFY_REJECTED', 1]);
    assert.match(r.error!.message, 'rejected recipient: 127.0.0.1');
    assert.match(r.error!.message, 'nobody@oryx.test');
    const mixed = await t.kernel.service('notify').send({ channel: 'mixed', subject: 's', body: 'b' });
    assert.is(mixed.status, 'sent');
    assert.equal(mixed.rejected, ['nobody@oryx.test']);
  } finally {
    await t.close();
    await smtp.close();
  }
});

test('the notify tool: an agent that lists it sends a mail; a denied channel is a denied tool result the model sees', async () => {
  const smtp = await startSmtp();
  const llm = scripted([
    { toolCalls: [{ name: 'notify', args: { channel: 'ops', subject: 'From the agent', body: 'Hello from a tool call.' } }] },
    { text: 'sent' },
    { toolCalls: [{ name: 'notify', args: { channel: 'blocked', subject: 'x', body: 'y' } }] },
    { text: 'could not' },
  ]);
  const t = await kernel([smtp.hostPort], { channels: [channel(smtp.port), channel(smtp.port + 1, { name: 'blocked' })] }, llm);
  try {
    await t.service.process({ agent: 'assistant', message: 'mail it' });
    const [mail] = await smtp.received(1);
    assert.is(mail!.subject, 'From the agent');
    assert.match(llm.requests[1]!.messages.at(-1)!.content, 'Sent on channel ops to me@oryx.test');
    await t.service.process({ agent: 'assistant', message: 'mail the other' });
    assert.match(llm.requests[3]!.messages.at(-1)!.content, 'ORYX_E_NOTIFY_DENIED');
    const tools = await t.kernel.service('database').query<{ tool: string; status: string }>('SELECT tool, status FROM tool_invocations ORDER BY id');
    assert.equal(tools, [{ tool: 'notify', status: 'ok' }, { tool: 'notify', status: 'denied' }]);
    assert.equal((await rows(t)).map((r) => [r.channel, r.status]), [['ops', 'sent'], ['blocked', 'denied']]);
  } finally {
    await t.close();
    await smtp.close();
  }
});

test('channels at run time: added with the password variable only, listed without secrets, refused when bad or taken', async () => {
  const t = await kernel([], { channels: [channel(2525)] });
  try {
    const n = t.kernel.service('notify');
    const added = await n.add({ name: 'alerts', host: 'smtp.example.com', port: 587, user: 'bot', passEnv: 'ALERTS_PASS', from: 'bot@example.com', to: ['a@example.com'] });
    assert.is(added.password, 'env ALERTS_PASS');
    assert.equal((await n.channels()).map((c) => [c.name, c.source]), [['ops', 'config'], ['alerts', 'runtime']]);
    assert.ok(await n.hasChannel('alerts'));
    const cases: [Record<string, unknown>, string, string][] = [
      [{ name: 'alerts', host: 'h', port: 25, from: 'a@b.c', to: ['d@e.f'] }, 'ORYX_E_NOTIFY_DUPLICATE', 'already exists'],
      [{ name: 'ops', host: 'h', port: 25, from: 'a@b.c', to: ['d@e.f'] }, 'ORYX_E_NOTIFY_DUPLICATE', 'oryx.config.ts'],
      [{ name: 'x', host: 'h', port: 70000, from: 'a@b.c', to: ['d@e.f'] }, 'ORYX_E_NOTIFY_BAD_CHANNEL', 'port'],
      [{ name: 'x', host: 'h', port: 25, from: 'nobody', to: ['d@e.f'] }, 'ORYX_E_NOTIFY_BAD_CHANNEL', 'from'],
      [{ name: 'x', host: 'h', port: 25, from: 'a@b.c', to: [] }, 'ORYX_E_NOTIFY_BAD_CHANNEL', 'to'],
      [{ name: 'x', host: 'h', port: 25, from: 'a@b.c', to: ['d@e.f'], user: 'u' }, 'ORYX_E_NOTIFY_BAD_CHANNEL', 'passEnv'],
      [{ name: 'x', host: 'h', port: 25, from: 'a@b.c', to: ['d@e.f'], user: 'u', pass: 'plain' }, 'ORYX_E_NOTIFY_BAD_CHANNEL', 'cannot be stored'],
    ];
    for (const [input, code, text] of cases) {
      let caught: any;
      try { await n.add(input); } catch (error) { caught = error; }
      assert.is(caught?.code, code, JSON.stringify(input));
      assert.match(caught.message, text);
    }
    assert.is((await n.remove('alerts').then(() => 'ok')), 'ok');
    let e: any;
    try { await n.remove('ops'); } catch (error) { e = error; }
    assert.is(e.code, 'ORYX_E_NOTIFY_CONFIG_CHANNEL');
    try { await n.send({ channel: 'nope', subject: 's', body: 'b' }); } catch (error) { e = error; }
    assert.is(e.code, 'ORYX_E_NOTIFY_UNKNOWN_CHANNEL');
  } finally {
    await t.close();
  }
});

test('options are checked when notify() is called, naming the channel and field', () => {
  for (const [options, code, text] of [
    [{ channels: [{ name: 'ops', host: 'h', port: 0, from: 'a@b.c', to: 'd@e.f' }] }, 'ORYX_E_NOTIFY_BAD_CHANNEL', 'notify(): channels[0] "ops": port'],
    [{ channels: [{ name: 'ops', host: 'h', port: 25, from: 'a@b.c', to: 'd@e.f', passEnv: 'X', user: 'u' }] }, 'ORYX_E_NOTIFY_BAD_CHANNEL', 'passEnv'],
    [{ retry: { attempts: 0 } }, 'ORYX_E_NOTIFY_OPTIONS', 'retry.attempts'],
    [{ channel: [] }, 'ORYX_E_NOTIFY_OPTIONS', 'channel'],
  ] as const) {
    let caught: any;
    try { notify(options as never); } catch (error) { caught = error; }
    assert.is(caught?.code, code, JSON.stringify(options));
    assert.match(caught.message, text);
  }
});

test('a reply through the service: to whom it is addressed, threaded by its ids, text and HTML, an extra header; bad fields refused before a row', async () => {
  const smtp = await startSmtp();
  const t = await kernel([smtp.hostPort], { channels: [channel(smtp.port)] });
  try {
    const notifier = t.kernel.service('notify');
    const r = await notifier.send({
      channel: 'ops', subject: 'Re: question', body: 'The answer.', html: '<p>The answer.</p>', to: ['alice@example.com'],
      messageId: '<reply-1@oryx.test>', inReplyTo: '<q-1@example.com>', references: ['<root@example.com>', '<q-1@example.com>'],
      headers: { 'Auto-Submitted': 'auto-replied' },
    });
    assert.is(r.status, 'sent');
    assert.equal(r.to, ['alice@example.com']);
    const [mail] = await smtp.received(1);
    assert.equal((Array.isArray(mail!.to) ? mail!.to : [mail!.to!]).flatMap((a) => a.value.map((v) => v.address)), ['alice@example.com'], 'not the channel\'s me@oryx.test');
    assert.is(mail!.messageId, '<reply-1@oryx.test>');
    assert.is(mail!.inReplyTo, '<q-1@example.com>');
    assert.equal(mail!.references, ['<root@example.com>', '<q-1@example.com>']);
    assert.is(mail!.text!.trim(), 'The answer.');
    assert.is(String(mail!.html).trim(), '<p>The answer.</p>');
    assert.is(mail!.headers.get('auto-submitted'), 'auto-replied');
    assert.is(JSON.parse((await rows(t))[0]!.recipients)[0], 'alice@example.com');
    for (const [bad, field] of [[{ to: ['not an address'] }, 'to'], [{ headers: { From: 'x@y.z' } }, 'headers'], [{ headers: { 'X-A': 'a\r\nBcc: x@y.z' } }, 'headers'], [{ inReplyTo: 'q-1' }, 'inReplyTo']] as [Partial<NotifyMessage>, string][]) {
      try {
        await notifier.send({ channel: 'ops', subject: 's', body: 'b', ...bad });
        assert.unreachable(field);
      } catch (e) {
        assert.is((e as { code?: string }).code, 'ORYX_E_NOTIFY_BAD_MESSAGE', field);
        assert.match((e as Error).message, field);
      }
    }
    assert.is((await rows(t)).length, 1, 'a refused message leaves no row');
  } finally {
    await t.close();
    await smtp.close();
  }
});

test.run();
