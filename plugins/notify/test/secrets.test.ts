// A channel's password is a secret from the start (issue 34): `pass: env('SMTP_PASS')` registers
// the variable's value with the kernel, so it is masked wherever OryxOS writes — the run's answer,
// the stored messages, the audit trail's tool rows — even when no mail was ever sent and the
// password turns up some other way (a tool that prints the environment).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
/** What the kernel's secret masking writes in place of a value (kernel/src/secrets.ts). */
const MASK = '***';
import { scripted, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import audit from '@oryxos/plugin-audit';
import sandbox from '@oryxos/plugin-sandbox';
import sqlite from '@oryxos/plugin-sqlite';
import notify, { env } from '../src/index.ts';

const PASS = 'smtp-password-never-shown-7f3a';

/** What an agent's `shell printenv NAME` would give it (plain text: nothing the audit's own redaction would recognise). */
const printEnv = {
  name: 'print_env', description: 'Prints a variable', source: 'plugin' as const,
  inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
  async execute(args: Record<string, unknown>) { return `the value is ${process.env[String(args.name)]}`; },
};

test('env(\'SMTP_PASS\') of a configured channel is masked in the answer, the stored messages and tool_invocations, before any mail is sent', async () => {
  process.env.ORYX_TEST_NOTIFY_SECRET = PASS;
  const t = await testKernel({
    plugins: [
      scripted([
        { toolCalls: [{ name: 'print_env', args: { name: 'ORYX_TEST_NOTIFY_SECRET' } }] },
        (req) => ({ text: `the tool said: ${req.messages.at(-1)!.content}; and I repeat ${PASS}` }),
      ]),
      sqlite(), audit(), sandbox(), toolsPlugin(printEnv),
      notify({ channels: [{ name: 'ops', host: 'smtp.example.com', port: 587, user: 'bot', pass: env('ORYX_TEST_NOTIFY_SECRET'), from: 'bot@example.com', to: ['me@example.com'] }] }),
    ],
    agents: { assistant: { tools: ['print_env'] } },
  });
  try {
    assert.is(t.kernel.secrets.mask(`pass ${PASS}`), `pass ${MASK}`, 'registered at setup');
    const r = await t.service.process({ agent: 'assistant', message: 'what is the password?' });
    // What the CLI prints of the answer (OryxCommand masks the kernel's secrets in everything it prints).
    assert.is(t.kernel.secrets.mask(r.answer), `the tool said: the value is ${MASK}; and I repeat ${MASK}`);
    const db = t.kernel.service('database');
    const messages = await db.query<{ content: string }>('SELECT * FROM messages');
    const tools = await db.query<Record<string, unknown>>('SELECT * FROM tool_invocations');
    assert.ok(messages.length >= 4 && tools.length === 1, `${messages.length} messages, ${tools.length} tool rows`);
    for (const row of [...messages, ...tools]) assert.not.ok(JSON.stringify(row).includes(PASS), `the password is in ${JSON.stringify(row)}`);
    assert.ok(tools.some((row) => String(row.output).includes(`the value is ${MASK}`)), `the tool row holds the masked output: ${JSON.stringify(tools)}`);
  } finally {
    await t.close();
    delete process.env.ORYX_TEST_NOTIFY_SECRET;
  }
});

test('a channel added at run time (passEnv) has its password registered when it is used', async () => {
  process.env.ORYX_TEST_NOTIFY_RUNTIME = `${PASS}-runtime`;
  const t = await testKernel({ plugins: [scripted([]), sqlite(), audit(), sandbox(), notify()] });
  try {
    const notifier = t.kernel.service('notify');
    await notifier.add({ name: 'later', host: '127.0.0.1', port: 9, user: 'bot', passEnv: 'ORYX_TEST_NOTIFY_RUNTIME', from: 'bot@example.com', to: 'me@example.com' });
    const r = await notifier.send({ channel: 'later', subject: 's', body: 'b' }); // denied by the sandbox: no smtp allowed
    assert.is(r.status, 'denied');
    assert.is(t.kernel.secrets.mask(`${PASS}-runtime`), MASK);
  } finally {
    await t.close();
    delete process.env.ORYX_TEST_NOTIFY_RUNTIME;
  }
});

test.run();
