// The sandbox decides which servers start (exec) and which URLs are reached (http).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Plugin } from '@oryxos/kernel';
import type { SandboxAction, SandboxContext, SandboxDecision } from '@oryxos/contracts';
import { minimalEnv, resolveExecutable } from '@oryxos/plugin-kit';
import { scripted, testKernel, type TestKernel } from '@oryxos/kernel/testing';
import mcp from '../src/index.ts';
import { FIXTURE, NODE, fixture } from './helpers.ts';

let t: TestKernel | undefined;
test.after.each(async () => { await t?.close(); t = undefined; });

/** A sandbox service with a rule function, recording what it was asked (the kernel's Sandbox interface). */
function ruleSandbox(rule: (action: SandboxAction, agent?: string) => SandboxDecision, asked: { action: SandboxAction; agent?: string }[]): Plugin {
  return {
    name: 'sandbox', version: '1.0.0', kernel: '^1', provides: ['sandbox'],
    setup(k) {
      const enforce = async (action: SandboxAction, ctx?: SandboxContext) => {
        asked.push({ action, agent: ctx?.agent?.name });
        return rule(action, ctx?.agent?.name);
      };
      k.provide('sandbox', {
        enforce,
        // An allowed program starts unconfined, with the minimal environment and the server's own.
        async launch(request, ctx) {
          const decision = await enforce({ kind: 'exec', ...request }, ctx);
          if (!decision.allow) return decision;
          const cwd = path.resolve(k.config.root, request.cwd ?? '.');
          const file = (await resolveExecutable(request.command, cwd)) ?? request.command;
          return { allow: true, launch: { file, args: request.args, cwd, env: { ...minimalEnv(), ...request.env }, program: file, confined: false, started() {}, async done() {} } };
        },
      });
    },
  };
}

test('starting a stdio server is an exec action; reaching a URL is an http action', async () => {
  const asked: { action: SandboxAction; agent?: string }[] = [];
  t = await testKernel({
    plugins: [ruleSandbox(() => ({ allow: true }), asked), mcp({ servers: { fx: fixture('--exit-at-start'), web: { url: 'http://127.0.0.1:9/mcp' } } })],
  });
  await t.kernel.service('mcp').connectAll();
  assert.equal(asked.map((a) => a.action).sort((x, y) => x.kind.localeCompare(y.kind)), [
    { kind: 'exec', command: NODE, args: [FIXTURE, '--exit-at-start'], cwd: t.dir },
    { kind: 'http', url: 'http://127.0.0.1:9/mcp', method: 'POST' },
  ]);
});

test('a denied server is unavailable with the sandbox reason and no process is started', async () => {
  const asked: { action: SandboxAction; agent?: string }[] = [];
  t = await testKernel({
    plugins: [
      ruleSandbox((a) => (a.kind === 'exec' && a.args.includes('--spawn-child') ? { allow: false, reason: 'exec of the fixture is not allowed' } : { allow: true }), asked),
      mcp({ servers: { denied: fixture('--spawn-child'), fine: fixture() } }),
    ],
  });
  const agent = await t.kernel.agents.load('assistant');
  const names = (await t.kernel.toolsFor(agent)).map((x) => x.name);
  assert.ok(names.includes('fine__echo'));
  assert.not.ok(names.some((n) => n.startsWith('denied__')));
  const status = (await t.kernel.toolSourceStatus()).find((s) => s.name === 'denied')!;
  assert.is(status.ok, false);
  assert.match(status.reason!, /exec of the fixture is not allowed/);
  const error = await t.kernel.service('mcp').connect('denied').catch((e) => e);
  assert.is(error.code, 'ORYX_E_SANDBOX_DENIED');
  // The log of the start says why it did not happen; the program never ran (it writes "fixture[pid]" lines there).
  const log = await readFile(path.join(t.dir, '.oryxos', 'logs', 'mcp-denied.log'), 'utf8');
  assert.match(log, /not started: .*exec of the fixture is not allowed/);
  assert.not.match(log, /fixture\[/);
});

test('without a sandbox plugin the kernel denies every server', async () => {
  t = await testKernel({ plugins: [mcp({ servers: { fx: fixture() } })] });
  const error = await t.kernel.service('mcp').connect('fx').catch((e) => e);
  assert.is(error.code, 'ORYX_E_SANDBOX_DENIED');
  assert.match(error.message, /no sandbox plugin is enabled/);
});

test('each call is checked again with the calling agent, and a denial is a denied tool result', async () => {
  const asked: { action: SandboxAction; agent?: string }[] = [];
  const llm = scripted([{ toolCalls: [{ id: 'c1', name: 'fx__echo', args: { text: 'hi' } }] }, { text: 'done' }]);
  const statuses: string[] = [];
  t = await testKernel({
    plugins: [
      ruleSandbox((_a, agent) => (agent === 'restricted' ? { allow: false, reason: 'restricted agents may not use fx' } : { allow: true }), asked),
      mcp({ servers: { fx: fixture() } }),
      llm,
      { name: 'observer', version: '1.0.0', kernel: '^1', setup(k) { k.hooks.afterTool.tapPromise(async (r, i) => { statuses.push(i.status); return r; }); } },
    ],
    agents: { restricted: { tools: ['fx__*'] } },
  });
  const run = await t.service.process({ agent: 'restricted', message: 'echo' });
  assert.is(run.answer, 'done');
  assert.equal(statuses, ['denied']);
  assert.match(llm.requests[1]!.messages.at(-1)!.content, /restricted agents may not use fx/);
  assert.ok(asked.some((a) => a.agent === 'restricted' && a.action.kind === 'exec'));
});

test.run();
