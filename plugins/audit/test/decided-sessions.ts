// Two sessions whose tool calls reuse the same ids, decided differently by different people: what
// the session trace (here, on SQLite and PostgreSQL) and the web console's timeline must tell
// apart. Driven through the kernel with the scripted provider, as a real run pauses and resumes.
import * as assert from 'uvu/assert';
import type { ChatRequest } from '@oryxos/provider-spec';
import type { Plugin } from '@oryxos/kernel';
import { echoTool, scripted, testKernel, toolsPlugin, type TestKernel } from '@oryxos/kernel/testing';
import approvals from '@oryxos/plugin-approvals';
import type { SessionTraceRows } from '../src/index.ts';

/** A tool no rule asks about. */
export const plain = { ...echoTool(), name: 'plain' };

/**
 * The user message names the call (`c1 echo`): the model makes that call, then answers with
 * what the tool said.
 */
export const step = (req: ChatRequest) => {
  const last = req.messages.at(-1)!;
  if (last.role === 'tool') return { text: `tool said: ${last.content}` };
  const [id, tool] = String(last.content).split(' ');
  return { toolCalls: [{ id: id!, name: tool!, args: { text: id! } }] };
};

/** A door whose person answers for call `c4` only; every other call waits in the approvals store. */
const prompt: Plugin = {
  name: 'test-prompt', version: '1.0.0', kernel: '^1',
  setup(ctx) {
    ctx.registerDoor({ name: 'test', ask: async (q) => (q.kind === 'approval' && q.call.id === 'c4' ? { decision: 'approve', by: 'erin' } : undefined) });
  },
};

export interface DecidedSessions {
  k: TestKernel;
  /** c1 approved by alice, c2 denied by bob ("not now"), c3 nobody asked, c4 approved by erin at the prompt, c1 again (a later run) denied by frank. */
  first: string;
  /** c1 denied by carol ("wrong day"), c2 approved by dave, c3 nobody asked. */
  second: string;
}

/** Runs both sessions on a kernel with these database plugins (and audit) in `dir`; the caller closes `k`. */
export async function decidedSessions(plugins: Plugin[], dir?: string): Promise<DecidedSessions> {
  const k = await testKernel({
    plugins: [scripted(Array.from({ length: 40 }, () => step)), toolsPlugin(echoTool(), plain), prompt, approvals(), ...plugins], dir,
    agents: { careful: { tools: ['echo', 'plain'], approve: ['echo'] } },
  });
  try {
    const decide = async (session: string | undefined, call: string, decision: 'approve' | 'deny', by: string, reason?: string) => {
      const paused = await k.service.process({ agent: 'careful', ...(session ? { session } : {}), message: `${call} echo`, door: 'test' });
      assert.is(paused.stopReason, 'suspended', `${call} waits for a person`);
      await k.kernel.service('approvals').decide(String(paused.suspended![0]!.data!.approvalId), { decision, by, ...(reason ? { reason } : {}) });
      assert.is((await k.service.continue(paused.runId)).stopReason, 'final');
      return paused.sessionId;
    };
    const unasked = async (session: string) => assert.is((await k.service.process({ agent: 'careful', session, message: 'c3 plain' })).answer, 'tool said: echo: c3');

    const first = await decide(undefined, 'c1', 'approve', 'alice');
    await decide(first, 'c2', 'deny', 'bob', 'not now');
    await unasked(first);
    assert.is((await k.service.process({ agent: 'careful', session: first, message: 'c4 echo', door: 'test' })).answer, 'tool said: echo: c4');
    await decide(first, 'c1', 'deny', 'frank');
    const second = await decide(undefined, 'c1', 'deny', 'carol', 'wrong day');
    await decide(second, 'c2', 'approve', 'dave');
    await unasked(second);
    return { k, first, second };
  } catch (error) {
    await k.close();
    throw error;
  }
}

/** Each call of each session with its status and decision, in the order they ran. */
export function decisionsOf(trace: SessionTraceRows): [string | null, string, unknown][] {
  return trace.toolInvocations.map((r) => [r.tool_call_id, r.status, r.approval]);
}

/** What {@link decisionsOf} gives for the two sessions. */
export const EXPECTED = {
  first: [
    ['c1', 'ok', { decision: 'approved', by: 'alice' }],
    ['c2', 'denied', { decision: 'denied', by: 'bob', reason: 'not now' }],
    ['c3', 'ok', null],
    ['c4', 'ok', { decision: 'approved', by: 'erin' }],
    ['c1', 'denied', { decision: 'denied', by: 'frank' }],
  ],
  second: [
    ['c1', 'denied', { decision: 'denied', by: 'carol', reason: 'wrong day' }],
    ['c2', 'ok', { decision: 'approved', by: 'dave' }],
    ['c3', 'ok', null],
  ],
};
