// The built CLI: every refused input with its exit code and message.
import { rm } from 'node:fs/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx } from '@oryxos/kernel/testing';
import { closedPort } from '../../notify/test/smtp-server.ts';
import { cliProject } from './cli-fixture.ts';

let dir = '';
let down = 0;
const oryx = (...args: string[]) => runOryx(args, { cwd: dir });

test.before(async () => {
  down = await closedPort();
  dir = await cliProject({
    tasks: [{ name: 'nightly', agent: 'assistant', message: 'report', cron: '0 3 * * *' }],
    channels: [{ name: 'ops', host: '127.0.0.1', port: down, from: 'bot@oryx.test', to: ['me@oryx.test'] }],
    smtpAllow: [`127.0.0.1:${down}`],
  });
});
test.after(async () => { if (dir) await rm(dir, { recursive: true, force: true }); });

test('oryx schedule add refuses bad input at once, each with its code, a message naming the problem and exit 1', async () => {
  const add = (...nameAndFlags: string[]) => oryx('schedule', 'add', ...nameAndFlags, '--agent', 'assistant', '--message', 'm');
  const ok = await add('inbox', '--every', '15m', '--notify', 'ops');
  assert.is(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, 'Added task inbox: every 15m, agent assistant, next at');
  const cases: [string[], string, string][] = [
    [['c1', '--cron', '61 * * * *'], 'ORYX_E_SCHEDULER_BAD_CRON', 'cron "61 * * * *" is not valid: Invalid value for minute: 61'],
    [['c2', '--every', '100ms'], 'ORYX_E_SCHEDULER_BAD_EVERY', 'shortest interval is 1000 ms'],
    [['c3', '--at', '2001-01-01T00:00:00Z'], 'ORYX_E_SCHEDULER_AT_PAST', 'has passed'],
    [['c4', '--at', 'tomorrow'], 'ORYX_E_SCHEDULER_BAD_AT', 'not an ISO 8601 date'],
    [['c5', '--cron', '0 8 * * *', '--timezone', 'Nowhere/City'], 'ORYX_E_SCHEDULER_BAD_TIMEZONE', 'Nowhere/City'],
    [['c6', '--every', '1h', '--notify', 'pager'], 'ORYX_E_SCHEDULER_UNKNOWN_CHANNEL', 'notify channel "pager" does not exist'],
    [['inbox', '--every', '1h'], 'ORYX_E_SCHEDULER_DUPLICATE', 'task "inbox" already exists'],
    [['nightly', '--every', '1h'], 'ORYX_E_SCHEDULER_DUPLICATE', 'declared in oryx.config.ts'],
    [['c7'], 'ORYX_E_SCHEDULER_BAD_TASK', 'give exactly one of cron, every or at'],
  ];
  for (const [args, code, text] of cases) {
    const r = await add(...args);
    assert.is(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, `error ${code}: `);
    assert.match(r.stderr, text);
    assert.match(r.stderr, 'hint: ');
  }
  const agent = await oryx('schedule', 'add', 'c8', '--agent', 'ghost', '--message', 'm', '--every', '1h');
  assert.is(agent.code, 1);
  assert.match(agent.stderr, 'error ORYX_E_SCHEDULER_UNKNOWN_AGENT: task "c8": agent "ghost" does not exist (agents: assistant, reporter)');
  const both = await add('c9', '--every', '1h', '--cron', '* * * * *');
  assert.is(both.code, 2, 'flags that exclude each other are a usage error');
  const list = await oryx('schedule', 'list', '--json');
  assert.equal(JSON.parse(list.stdout).items.map((t: { name: string; source: string }) => [t.name, t.source]), [['inbox', 'runtime'], ['nightly', 'config']]);
});

test('remove, enable, disable, run and history refuse what they cannot do, with exit 1 and the code', async () => {
  for (const [args, code] of [
    [['schedule', 'remove', 'nightly'], 'ORYX_E_SCHEDULER_CONFIG_TASK'], [['schedule', 'disable', 'nightly'], 'ORYX_E_SCHEDULER_CONFIG_TASK'],
    [['schedule', 'remove', 'nope'], 'ORYX_E_SCHEDULER_NOT_FOUND'], [['schedule', 'enable', 'nope'], 'ORYX_E_SCHEDULER_NOT_FOUND'],
    [['schedule', 'run', 'nope'], 'ORYX_E_SCHEDULER_NOT_FOUND'], [['schedule', 'history', 'nope'], 'ORYX_E_SCHEDULER_NOT_FOUND'],
    [['notify', 'remove', 'ops'], 'ORYX_E_NOTIFY_CONFIG_CHANNEL'], [['notify', 'test', 'nope'], 'ORYX_E_NOTIFY_UNKNOWN_CHANNEL'],
    [['notify', 'add', 'x', '--host', 'h', '--port', '25', '--from', 'nobody', '--to', 'a@b.c'], 'ORYX_E_NOTIFY_BAD_CHANNEL'],
    [['notify', 'add', 'ops', '--host', 'h', '--port', '25', '--from', 'a@b.c', '--to', 'a@b.c'], 'ORYX_E_NOTIFY_DUPLICATE'],
  ] as const) {
    const r = await oryx(...args);
    assert.is(r.code, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, `error ${code}: `);
  }
});

test('oryx schedule run runs now and records it (exit 0); the mail to a server that is down fails after retries, and says so', async () => {
  const r = await oryx('schedule', 'run', 'inbox');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /^answer 1 from \d+/);
  assert.match(r.stderr, 'inbox slot');
  assert.match(r.stderr, ': ok');
  assert.match(r.stderr, 'mail failed');
  const h = await oryx('schedule', 'history', 'inbox', '--json');
  const [row] = JSON.parse(h.stdout).items;
  assert.equal([row.status, row.firedBy, row.notifyStatus], ['ok', 'manual', 'failed']);
  const t = await oryx('notify', 'test', 'ops');
  assert.is(t.code, 1);
  assert.match(t.stderr, `error ORYX_E_NOTIFY_CONNECT: channel ops: connect: no SMTP server answered at 127.0.0.1:${down}`);
  assert.match(t.stderr, '(after 2 attempts)');
});

test.run();
