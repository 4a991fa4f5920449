// With the real sandbox plugin (@oryxos/plugin-sandbox): one server it allows, others it denies.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sandbox from '@oryxos/plugin-sandbox';
import { scripted, testKernel, type TestKernel } from '@oryxos/kernel/testing';
import mcp from '../src/index.ts';
import { FIXTURE, NODE, fixture } from './helpers.ts';

let t: TestKernel | undefined;
test.after.each(async () => { await t?.close(); t = undefined; });

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Node may run the fixture, with exactly the fixture path as its one argument. */
const policy = () => sandbox({ exec: { allow: [{ command: NODE, args: [escape(FIXTURE)] }] } });

test('a server the sandbox allows starts, and a scripted model calls its tool', async () => {
  const llm = scripted([{ toolCalls: [{ id: 'c1', name: 'fx__echo', args: { text: 'allowed' } }] }, (req) => ({ text: req.messages.at(-1)!.content })]);
  t = await testKernel({ plugins: [policy(), mcp({ servers: { fx: fixture() } }), llm], agents: { assistant: { tools: ['fx__*'] } } });
  const run = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(run.answer, 'echo: allowed');
});

test('servers the sandbox does not allow are unavailable with its reason, and never started', async () => {
  t = await testKernel({
    plugins: [policy(), mcp({ servers: { extra: fixture('--spawn-child'), shell: { command: '/bin/sh', args: ['-c', 'exit 0'] }, fx: fixture() } })],
  });
  const agent = await t.kernel.agents.load('assistant');
  const names = (await t.kernel.toolsFor(agent)).map((x) => x.name);
  assert.ok(names.includes('fx__echo'));
  assert.not.ok(names.some((n) => n.startsWith('extra__') || n.startsWith('shell__')));
  const status = await t.kernel.toolSourceStatus();
  for (const name of ['extra', 'shell']) {
    const s = status.find((x) => x.name === name)!;
    assert.is(s.ok, false, name);
    assert.match(s.reason!, /may not be started: Denied by the sandbox/, name);
    assert.not.ok(existsSync(path.join(t.dir, '.oryxos', 'logs', `mcp-${name}.log`)), `${name} was started`);
  }
  const error = await t.kernel.service('mcp').connect('shell').catch((e) => e);
  assert.is(error.code, 'ORYX_E_SANDBOX_DENIED');
});

test.run();
