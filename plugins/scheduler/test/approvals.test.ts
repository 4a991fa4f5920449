// A scheduled run whose call needs approval: nobody is there, so the approval is stored, mailed
// to the task's channel (a real SMTP server on loopback), and denied by the timeout the approvals
// plugin keeps for the scheduler's door; the run then continues and the model hears of the denial.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChatRequest } from '@oryxos/provider-spec';
import { echoTool, scripted, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import notify from '@oryxos/plugin-notify';
import sandbox from '@oryxos/plugin-sandbox';
import sqlite from '@oryxos/plugin-sqlite';
import approvals from '@oryxos/plugin-approvals';
import { startSmtp } from '../../notify/test/smtp-server.ts';
import scheduler from '../src/index.ts';
import { tempDir, waitFor } from './helpers.ts';
import type { TaskScheduler } from '../src/service.ts';

const step = (req: ChatRequest) => (req.messages.at(-1)!.role === 'tool'
  ? { text: `tool said: ${req.messages.at(-1)!.content}` }
  : { toolCalls: [{ id: 'push-1', name: 'echo', args: { text: 'deploy' } }] });

test('a waiting scheduled run is announced on its channel and expires after approvals({ timeoutMs: { scheduler } }): the run goes on with a denial', async () => {
  const smtp = await startSmtp();
  const { dir, cleanup } = await tempDir();
  const echo = echoTool();
  const t = await testKernel({
    dir,
    plugins: [
      scripted(Array.from({ length: 20 }, () => step)), toolsPlugin(echo), sqlite(),
      sandbox({ smtp: { allow: [smtp.hostPort] } }),
      notify({ channels: [{ name: 'ops', host: '127.0.0.1', port: smtp.port, from: 'bot@oryx.test', to: ['me@oryx.test'] }] }),
      scheduler({ refreshMs: 200, leaseMs: 3000, tasks: [{ name: 'deploy', agent: 'careful', message: 'deploy it', every: '1h', notify: 'ops' }] }),
      approvals({ timeoutMs: { scheduler: 1000 }, sweepMs: 200 }),
    ],
    agents: { careful: { tools: ['echo'], approve: ['echo'] } },
  });
  try {
    const tasks = (t.kernel.service('scheduler') as TaskScheduler);
    const execution = await tasks.run('deploy');
    assert.is(execution.status, 'waiting');
    const [pending] = await t.kernel.service('approvals').list({ status: 'pending' });
    assert.ok(pending, 'the approval is stored');
    // expiresAt is set a moment before the row's requestedAt: the timeout from the request, less that moment.
    const lifetime = Date.parse(pending!.expiresAt!) - Date.parse(pending!.requestedAt);
    assert.ok(lifetime > 0 && lifetime <= 1000, `it expires the scheduler's timeout after it was asked for (${lifetime} ms)`);
    const [mail] = await smtp.received(1);
    assert.is(mail!.subject, '[oryx] deploy: waiting');
    assert.match(mail!.text!, `oryx approvals approve ${pending!.id}`);
    assert.match(mail!.text!, /echo \{"text":"deploy"\}: echo needs approval/);

    await tasks.start();
    const expired = await waitFor(async () => {
      const a = await t.kernel.service('approvals').get(pending!.id);
      const messages = await t.kernel.service('sessions').messages(pending!.sessionId);
      return a?.status === 'expired' && messages.length === 4 ? { a, messages } : undefined;
    }, 60_000, 'the approval to expire and the run to continue');
    await tasks.stop();
    assert.is(expired.a.decidedBy, 'timeout');
    assert.equal(echo.calls, [], 'the call never ran');
    assert.match(expired.messages[2]!.message.content, /^Not run: this call needed a person's approval, and nobody approved it in time\./);
    assert.match(expired.messages[3]!.message.content, /^tool said: Not run: /);
  } finally {
    await t.close();
    await smtp.close();
    await cleanup();
  }
});

test.run();
