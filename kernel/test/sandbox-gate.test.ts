// The one gate to the sandbox: enforceAction and prepareExec ask the sandbox service with the
// caller's context and turn a refusal into an error a tool result can carry. (The sandbox plugin
// audits what it denies: plugins/sandbox/test/denial-audit.test.ts.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type Plugin } from '@oryxos/kernel';
import { enforceAction, prepareExec } from '@oryxos/sandbox-gate';
import { isOryxError } from '@oryxos/provider-spec';
import type { ExecLaunch, SandboxContext } from '@oryxos/contracts';
import { testKernel } from '@oryxos/kernel/testing';

test('with no sandbox plugin every action and launch is refused as ORYX_E_SANDBOX_DENIED, saying why', async () => {
  const t = await testKernel({ plugins: [] });
  try {
    const e = await enforceAction(t.kernel, { kind: 'smtp', host: 'mail.example', port: 25 }, { origin: 'notify channel ops' }).catch((x) => x);
    assert.ok(isOryxError(e) && e.code === 'ORYX_E_SANDBOX_DENIED');
    assert.match(e.message, /no sandbox plugin is enabled/);
    const x = await prepareExec(t.kernel, { command: 'git', args: ['status'] }, { origin: 'scheduler task nightly' }).catch((y) => y);
    assert.is(x.code, 'ORYX_E_SANDBOX_DENIED');
    assert.match(x.message, /no program may be started/);
  } finally {
    await t.close();
  }
});

test('prepareExec hands back the launch the sandbox decided on, asked with the caller\'s context', async () => {
  const asked: { command: string; ctx?: SandboxContext }[] = [];
  const launch: ExecLaunch = { file: '/usr/bin/bwrap', args: ['--', '/bin/ls'], cwd: '/p', env: { PATH: '/bin' }, program: '/bin/ls', confined: true, started() {}, async done() {} };
  const sandbox: Plugin = {
    name: 'sandbox', version: '1.0.0', kernel: '^1', provides: ['sandbox'],
    setup(k) {
      k.provide('sandbox', {
        async enforce() { return { allow: true }; },
        async launch(request, ctx) { asked.push({ command: request.command, ctx }); return { allow: true, launch }; },
      });
    },
  };
  const t = await testKernel({ plugins: [sandbox] });
  try {
    assert.is(await prepareExec(t.kernel, { command: 'ls', args: [] }, { origin: 'scheduler task nightly' }), launch);
    assert.equal(asked, [{ command: 'ls', ctx: { origin: 'scheduler task nightly', agent: undefined } }]);
  } finally {
    await t.close();
  }
});

test.run();
