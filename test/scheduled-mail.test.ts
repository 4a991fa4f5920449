// End to end: a task declared in oryx.config.ts runs on schedule under the built `oryx web`,
// through the real openai provider (against a loopback server speaking its wire protocol), and
// its result arrives at a real SMTP server on loopback. Build first (`npm test` does).
import { spawn, type ChildProcess } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempProject, writeAgents } from '@oryxos/kernel/testing';
import { completion, openaiServer } from '../plugins/openai/test/helpers/openai-server.ts';
import { startSmtp } from '../plugins/notify/test/smtp-server.ts';

const TOKEN = 'scheduled-mail-e2e-token-0123456789';
const PASS = 'e2e-smtp-password-5551';

test('a config task fires every 2s under oryx web; each result is mailed with its subject and answer, and recorded', async () => {
  const smtp = await startSmtp({ user: 'oryx', pass: PASS });
  let n = 0;
  const model = await openaiServer(Array.from({ length: 200 }, () => () => ({ json: completion({ content: `Status report #${++n}: all systems nominal.` }) })));
  const dir = await tempProject('scheduled-mail-');
  let web: ChildProcess | undefined;
  let logs = '';
  try {
    await writeAgents(path.join(dir, '.oryxos'), { reporter: { tools: [], body: 'You write short status reports.' } });
    await writeFile(path.join(dir, 'oryx.config.ts'), `import { defineConfig } from '@oryxos/kernel';
import openai from '@oryxos/plugin-openai';
import sqlite from '@oryxos/plugin-sqlite';
import audit from '@oryxos/plugin-audit';
import sandbox from '@oryxos/plugin-sandbox';
import web from '@oryxos/plugin-web';
import scheduler from '@oryxos/plugin-scheduler';
import notify, { env } from '@oryxos/plugin-notify';

export default defineConfig({
  defaultAgent: 'reporter',
  plugins: [
    openai({ defaultModel: 'gpt-test' }),
    sqlite(),
    audit(),
    sandbox({ smtp: { allow: ['${smtp.hostPort}'] } }),
    notify({ channels: [{ name: 'ops', host: '127.0.0.1', port: ${smtp.port}, user: 'oryx', pass: env('E2E_SMTP_PASS'), from: 'OryxOS <bot@oryx.test>', to: ['ops@oryx.test'] }] }),
    scheduler({ tasks: [{ name: 'status', agent: 'reporter', message: 'Write the status report.', every: '2s', notify: 'ops' }] }),
    web(),
  ],
});
`);
    const env = { ...process.env, NO_COLOR: '1', OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: model.url, ORYX_WEB_TOKEN: TOKEN, E2E_SMTP_PASS: PASS };
    web = spawn(process.execPath, [path.resolve('bin/run.js'), 'web', '--port', '0'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    web.stdout!.on('data', (d) => { logs += d; });
    web.stderr!.on('data', (d) => { logs += d; });
    const mails = await smtp.received(2, 60_000).catch((error) => { throw new Error(`${error.message}\n${logs}`); });
    for (const mail of mails.slice(0, 2)) {
      assert.is(mail.subject, '[oryx] status: ok');
      assert.match(mail.text!, /^Status report #\d+: all systems nominal\./);
      assert.match(mail.text!, /Task status, slot \d{4}-\d\d-\d\dT\d\d:\d\d:(\d[02468])\.000Z, session /);
    }
    assert.ok(smtp.logins.every((l) => l.ok));
    assert.match(model.requests[0]!.body.messages.at(-1).content, 'Write the status report.');

    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(logs)![1]!;
    assert.match(logs, 'scheduler: started with 1 task(s)');
    const res = await fetch(`${url}/api/tasks/status/executions`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const { items } = await res.json() as { items: { status: string; notifyStatus: string; slot: string; answer: string }[] };
    const sent = items.filter((e) => e.notifyStatus === 'sent');
    assert.ok(sent.length >= 2);
    assert.ok(sent.every((e) => e.status === 'ok' && Date.parse(e.slot) % 2000 === 0));
    assert.ok(mails.some((m) => m.text!.startsWith(sent.at(-1)!.answer)), 'the recorded answer is the one mailed');

    web.kill('SIGTERM');
    const code = await new Promise((resolve) => web!.on('close', resolve));
    assert.is(code, 0, logs);
    assert.match(logs, 'SIGTERM: shutting down');
    assert.not.match(logs, PASS);
  } finally {
    if (web && web.exitCode === null && web.signalCode === null) { web.kill('SIGKILL'); await new Promise((r) => web!.on('close', r)); }
    await model.close();
    await smtp.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
