// The one gate to the sandbox: enforceAction and prepareExec ask the sandbox service with the
// caller's context, and every denial reaches the audit service without code in the caller.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { enforceAction, isOryxError, prepareExec, type ExecLaunch, type Plugin, type SandboxContext, type SandboxEvent, type Tool } from '@oryxos/kernel';
import { scripted, testKernel, toolsPlugin } from '@oryxos/kernel/testing';

/** An audit service that keeps what it is given. */
function auditProbe(events: SandboxEvent[]): Plugin {
  return { name: 'audit-probe', version: '1.0.0', kernel: '^1', provides: ['audit'], setup(k) { k.provide('audit', { async sandboxEvent(e) { events.push(e); } }); } };
}

test('a denial outside a tool call is audited with what asked, and thrown as ORYX_E_SANDBOX_DENIED', async () => {
  const events: SandboxEvent[] = [];
  const t = await testKernel({ plugins: [auditProbe(events)] }); // no sandbox plugin: the kernel denies everything
  try {
    const e = await enforceAction(t.kernel, { kind: 'smtp', host: 'mail.example', port: 25 }, { origin: 'notify channel ops' }).catch((x) => x);
    assert.ok(isOryxError(e) && e.code === 'ORYX_E_SANDBOX_DENIED');
    const x = await prepareExec(t.kernel, { command: 'git', args: ['status'], env: { GIT_DIR: '/x', TOKEN: 'secret-value' } }, { origin: 'scheduler task nightly' }).catch((y) => y);
    assert.is(x.code, 'ORYX_E_SANDBOX_DENIED');
    assert.equal(events.map((ev) => [ev.decision, ev.kind, ev.origin, ev.target]), [
      ['deny', 'smtp', 'notify channel ops', 'smtp mail.example:25'],
      ['deny', 'exec', 'scheduler task nightly', 'exec ["git","status"] env GIT_DIR TOKEN'],
    ]);
    assert.match(events[0]!.reason!, /no sandbox plugin is enabled/);
    assert.not.ok(JSON.stringify(events).includes('secret-value'), 'an environment value reached the audit trail');
  } finally {
    await t.close();
  }
});

test('a denial inside a tool call carries the run, the agent and the tool call', async () => {
  const events: SandboxEvent[] = [];
  const probe: Tool = {
    name: 'probe', description: 'asks for a file', source: 'plugin', inputSchema: { type: 'object', properties: {} },
    async execute(_a, ctx) { await ctx.enforce({ kind: 'file', op: 'read', path: '/etc/passwd' }); return 'read'; },
  };
  const t = await testKernel({ plugins: [auditProbe(events), scripted([{ toolCalls: [{ id: 'c7', name: 'probe' }] }, { text: 'ok' }]), toolsPlugin(probe)] });
  try {
    const run = await t.service.process({ agent: 'assistant', message: 'go' });
    assert.equal(events.map((e) => [e.kind, e.origin, e.agent, e.sessionId, e.toolCallId]), [['file', 'tool probe', 'assistant', run.sessionId, 'c7']]);
    assert.ok(events[0]!.runId);
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
