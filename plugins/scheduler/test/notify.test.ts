// Each task result reaches its channel: a real SMTP server on loopback receives it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import notify from '@oryxos/plugin-notify';
import sandbox from '@oryxos/plugin-sandbox';
import { closedPort, startSmtp } from '../../notify/test/smtp-server.ts';
import { executions, schedulerKernel, tempDir, waitFor } from './helpers.ts';
import type { TaskScheduler } from '../src/service.ts';

test('a scheduled result is mailed: subject has task and status, body the answer; an error mails the error and the session', async () => {
  const smtp = await startSmtp();
  const { dir, cleanup } = await tempDir();
  const channels = [{ name: 'ops', host: '127.0.0.1', port: smtp.port, from: 'bot@oryx.test', to: ['me@oryx.test'] }];
  const t = await schedulerKernel(dir, { tasks: [{ name: 'brief', agent: 'assistant', message: 'brief me', every: '1s', notify: 'ops' }] }, {
    plugins: [sandbox({ smtp: { allow: [smtp.hostPort] } }), notify({ channels })],
    step: (n) => (n === 1 ? { text: 'Everything is green today.' } : { error: Object.assign(new Error('model exploded'), { code: 'ORYX_E_LLM_SERVER' }) }),
  });
  try {
    const tasks = (t.kernel.service('scheduler') as TaskScheduler);
    await tasks.start();
    const [first] = await smtp.received(1);
    assert.is(first!.subject, '[oryx] brief: ok');
    assert.match(first!.text!, /^Everything is green today\./);
    await smtp.received(2);
    await tasks.stop();
    const second = smtp.mails[1]!;
    assert.is(second.subject, '[oryx] brief: error');
    const rows = await executions(t, 'brief');
    const failed = rows.find((e) => e.status === 'error')!;
    assert.match(second.text!, failed.error_code!);
    assert.match(second.text!, `Session: ${failed.session_id}`);
    const ok = rows.find((e) => e.status === 'ok')!;
    assert.is(ok.notify_status, 'sent');
    const [sent] = await t.kernel.service('database').query<{ id: number; origin: string; session_id: string }>('SELECT id, origin, session_id FROM notifications WHERE id = ?', [ok.notification_id!]);
    assert.equal(sent, { id: ok.notification_id, origin: 'scheduler task brief', session_id: ok.session_id });
  } finally {
    await t.close();
    await smtp.close();
    await cleanup();
  }
});

test('a result whose channel fails or is denied is still recorded: the execution says so, the run stays ok', async () => {
  const smtp = await startSmtp();
  const down = await closedPort();
  const { dir, cleanup } = await tempDir();
  const channels = [
    { name: 'down', host: '127.0.0.1', port: down, from: 'bot@oryx.test', to: ['me@oryx.test'] },
    { name: 'blocked', host: '127.0.0.1', port: smtp.port, from: 'bot@oryx.test', to: ['me@oryx.test'] },
  ];
  const t = await schedulerKernel(dir, {}, { plugins: [sandbox({ smtp: { allow: [`127.0.0.1:${down}`] } }), notify({ channels, retry: { attempts: 2, baseDelayMs: 20 } })] });
  try {
    const tasks = (t.kernel.service('scheduler') as TaskScheduler);
    await tasks.add({ name: 'to-down', agent: 'assistant', message: 'm', every: '1d', notify: 'down' });
    await tasks.add({ name: 'to-blocked', agent: 'assistant', message: 'm', every: '1d', notify: 'blocked' });
    const a = await tasks.run('to-down');
    const b = await tasks.run('to-blocked');
    assert.equal([a.status, a.notify_status], ['ok', 'failed']);
    assert.equal([b.status, b.notify_status], ['ok', 'denied']);
    assert.is(smtp.connections, 0);
    assert.ok(await waitFor(async () => t.warnings.some((w) => w.includes('to-blocked') && w.includes('ORYX_E_NOTIFY_DENIED'))));
  } finally {
    await t.close();
    await smtp.close();
    await cleanup();
  }
});

test.run();
