// The sandbox audits what it denies: a denial inside a tool call carries the run, the agent and
// the call; one outside a run (a plugin's own action) carries what asked; an action that asks
// inside a tool call is the approvals plugin's to record, and a probe is not a decision.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type Plugin, type Tool } from '@oryxos/kernel';
import { enforceAction } from '@oryxos/plugin-kit';
import type { SandboxEvent } from '@oryxos/contracts';
import { scripted, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import sandbox from '../src/index.ts';

/** An audit service that keeps what it is given. */
function auditProbe(events: SandboxEvent[]): Plugin {
  return {
    name: 'audit-probe', version: '1.0.0', kernel: '^1', provides: ['audit'],
    setup(k) { k.provide('audit', { async sandboxEvent(e) { events.push(e); }, async sessionTrace() { return { runs: [], llmCalls: [], toolInvocations: [], moreRuns: false }; } }); },
  };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

test('a denial inside a tool call is audited once, with the run, the agent and the tool call', async () => {
  const events: SandboxEvent[] = [];
  const probe: Tool = {
    name: 'probe', description: 'asks for a file', source: 'plugin', inputSchema: { type: 'object', properties: {} },
    async execute(_a, ctx) { await ctx.enforce({ kind: 'file', op: 'read', path: '/etc/passwd' }); return 'read'; },
  };
  const t = await testKernel({ plugins: [auditProbe(events), sandbox({ files: { read: ['.'] } }), scripted([{ toolCalls: [{ id: 'c7', name: 'probe' }] }, { text: 'ok' }]), toolsPlugin(probe)] });
  try {
    const run = await t.service.process({ agent: 'assistant', message: 'go' });
    await settle();
    assert.equal(events.map((e) => [e.decision, e.kind, e.origin, e.agent, e.sessionId, e.toolCallId, e.runId]), [['deny', 'file', 'tool probe', 'assistant', run.sessionId, 'c7', run.runId]]);
  } finally {
    await t.close();
  }
});

test('a plugin\'s own action outside a run is audited with what asked; environment values never reach the trail; a probe is not audited', async () => {
  const events: SandboxEvent[] = [];
  const t = await testKernel({ plugins: [auditProbe(events), sandbox({})] });
  try {
    const e = await enforceAction(t.kernel, { kind: 'smtp', host: 'mail.example', port: 25 }, { origin: 'notify channel ops' }).catch((x) => x);
    assert.is(e.code, 'ORYX_E_SANDBOX_DENIED');
    await t.kernel.service('sandbox').enforce({ kind: 'http', url: 'https://example.com/', method: 'GET' }, { probe: true });
    await t.kernel.service('sandbox').launch({ command: 'git', args: ['status'], env: { GIT_DIR: '/x', TOKEN: 'secret-value' } }, { origin: 'scheduler task nightly' });
    await settle();
    assert.equal(events.map((ev) => [ev.decision, ev.kind, ev.origin, ev.target]), [
      ['deny', 'smtp', 'notify channel ops', 'smtp mail.example:25'],
      ['deny', 'exec', 'scheduler task nightly', 'exec ["git","status"] env GIT_DIR TOKEN'],
    ]);
    assert.not.ok(JSON.stringify(events).includes('secret-value'), 'an environment value reached the audit trail');
  } finally {
    await t.close();
  }
});

test.run();
