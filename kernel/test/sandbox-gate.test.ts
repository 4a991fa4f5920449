// The one gate to the sandbox: enforceAction and prepareExec ask the sandbox service with the
// caller's context, and every denial reaches the audit service without code in the caller.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { enforceAction, isOryxError, minimalEnv, prepareExec, type Plugin, type SandboxEvent, type Tool } from '../src/index.ts';
import { allowAll, scripted, testKernel, toolsPlugin } from '../src/testing.ts';

/** An audit service that keeps what it is given. */
function auditProbe(events: SandboxEvent[]): Plugin {
  return { name: 'audit-probe', version: '1.0.0', kernel: '^1', setup(k) { k.provide('audit', { async sandboxEvent(e) { events.push(e); } }); } };
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

test('a sandbox without launch(): the program starts unconfined with the minimal environment plus the launcher\'s', async () => {
  const t = await testKernel({ plugins: [allowAll()] });
  try {
    process.env.ORYX_GATE_SECRET = 'not for children';
    const launch = await prepareExec(t.kernel, { command: 'ls', args: ['-a'], env: { LANG: 'C' } });
    assert.is(launch.confined, false);
    assert.match(launch.file, /\/ls$/);
    assert.is(launch.file, launch.program);
    assert.equal(launch.args, ['-a']);
    assert.is(launch.cwd, t.dir);
    assert.equal(launch.env, { ...minimalEnv(), LANG: 'C' });
    assert.is(launch.env.ORYX_GATE_SECRET, undefined);
  } finally {
    delete process.env.ORYX_GATE_SECRET;
    await t.close();
  }
});

test.run();
