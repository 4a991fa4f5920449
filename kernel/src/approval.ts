/**
 * Human approval of tool calls: what a call asks a person for (sandbox actions that `ask`,
 * a per-tool rule), the grant an approved call runs with, and the pause when nobody in this
 * process decides. The executor calls {@link askFirst} before a call runs; the loop stops the
 * run when a call is waiting; `AgentService.resume` runs it once decided.
 */
import { OryxError } from './errors.ts';
import type { ApprovalAnswer } from './hooks.ts';
import type { Kernel } from './kernel.ts';
import { describeAction } from './sandbox-gate.ts';
import type { Approval, ApprovalAsk, ApprovalRef, RunContext, SandboxAction, Tool, ToolCall, ToolResult } from './types.ts';

/** What a call may do after approval: the approved sandbox actions, and the call itself when a rule asked. */
interface Grant {
  rule: boolean;
  actions: SandboxAction[];
}

/** Per run: tools approved "always", grants by call id, and the one pending approval. */
interface RunApprovals {
  always: Map<string, string>;
  grants: Map<string, Grant>;
  pending?: Approval;
  /** Set while a call stores its request, so a second asking call of the same response waits instead. */
  pausing: boolean;
}

const states = new WeakMap<RunContext, RunApprovals>();

function stateOf(run: RunContext): RunApprovals {
  let s = states.get(run);
  if (!s) states.set(run, (s = { always: new Map(), grants: new Map(), pausing: false }));
  return s;
}

/** The actions a person approved for the call (the sandbox then allows them where they would ask). */
export function approvedActions(run: RunContext, toolCallId: string): SandboxAction[] | undefined {
  return stateOf(run).grants.get(toolCallId)?.actions;
}

/** Audits how a stored approval was decided (by a person elsewhere, the timeout), when its run resumes. */
export async function auditDecision(kernel: Kernel, run: RunContext, approval: Approval): Promise<void> {
  const call = { id: approval.toolCallId, name: approval.tool, args: approval.args };
  const by = `approval ${approval.id} by ${approval.decidedBy ?? 'unknown'}${approval.reason ? `: ${approval.reason}` : ''}`;
  await audit(kernel, run, call, approval.asks, approval.status === 'approved' ? 'allow' : 'deny', by);
}

/** Gives a call the approval a person gave it (a resumed run). */
export function grant(run: RunContext, approval: Approval): void {
  stateOf(run).grants.set(approval.toolCallId, {
    rule: approval.asks.some((a) => !a.action), actions: approval.asks.flatMap((a) => (a.action ? [a.action] : [])),
  });
}

/** Why the call asks by rule (a tool marked `approval: 'always'`, or `approve:` in AGENT.md), or undefined. */
function ruleAsk(run: RunContext, tool: Tool): ApprovalAsk | undefined {
  if (run.agent.approve?.includes(tool.name)) return { reason: `${tool.name} needs approval: approve: [${tool.name}] in ${run.agent.file}` };
  if (tool.approval === 'always') return { reason: `${tool.name} needs approval: its plugin (${tool.plugin ?? 'unknown'}) asks before every call` };
  return undefined;
}

/** True when the tool asks before every call by rule (whatever the sandbox says about its actions). */
export function asksByRule(run: RunContext, tool: Tool): boolean {
  return ruleAsk(run, tool) !== undefined;
}

/** A call that must wait for a person: the loop stops the run, and the call has no result yet. */
export class ApprovalPending extends Error {
  constructor(readonly approval: Approval | undefined) {
    super(approval ? `waiting for approval ${approval.id}` : 'waiting for another call\'s approval');
  }
}

/**
 * Asks before a call runs. `actionAsks` are the declared sandbox actions the sandbox answered
 * `ask` for (the call holds no approval for them); the per-tool rule adds one unless the call
 * holds it. Unless nothing asks, gets a decision: "always" approved earlier in the run, an
 * `onApproval` tap in this process (the CLI's prompt), else a pending approval is stored and
 * {@link ApprovalPending} thrown. Returns a denial result to give the model instead, or
 * undefined to run (with a grant for what was approved).
 */
export async function askFirst(kernel: Kernel, run: RunContext, call: ToolCall, tool: Tool, actionAsks: ApprovalAsk[]): Promise<ToolResult | undefined> {
  const state = stateOf(run);
  const held = state.grants.get(call.id);
  const rule = ruleAsk(run, tool);
  const asks = rule && !held?.rule ? [rule, ...actionAsks] : actionAsks;
  if (!asks.length) return undefined;
  const always = state.always.get(tool.name);
  const answer: ApprovalAnswer | undefined = always
    ? { decision: 'approve', by: always, reason: `every ${tool.name} call of this run` }
    : await kernel.hooks.onApproval.promise({ run, call, tool, asks });
  if (answer) {
    await audit(kernel, run, call, asks, answer.decision === 'deny' ? 'deny' : 'allow', `approval by ${answer.by}${answer.reason ? `: ${answer.reason}` : ''}`);
    if (answer.decision === 'deny') return deniedResult(answer.by, answer.reason);
    if (answer.decision === 'always') state.always.set(tool.name, answer.by);
    state.grants.set(call.id, {
      rule: !!held?.rule || asks.some((a) => !a.action), actions: [...held?.actions ?? [], ...asks.flatMap((a) => (a.action ? [a.action] : []))],
    });
    return undefined;
  }
  if (state.pausing || state.pending) throw new ApprovalPending(undefined);
  // A sub-agent's run cannot stop its caller's tool call half-way; without a store nothing could wait.
  const nowhere = run.parentRunId
    ? 'a sub-agent cannot wait for a person (only its caller\'s own calls can); nobody decided in this process'
    : !kernel.hasService('approvals') ? 'no approvals service is enabled (sqlite or postgres) and nobody decided in this process' : undefined;
  if (nowhere) {
    await audit(kernel, run, call, asks, 'deny', `approval: nobody could be asked`);
    return deniedResult('nobody', nowhere);
  }
  state.pausing = true;
  try {
    const expiresInMs = run.approval?.expiresInMs;
    state.pending = await kernel.service('approvals').request({
      runId: run.runId, sessionId: run.sessionId, agent: run.agent.name, tool: call.name, toolCallId: call.id, args: call.args, asks,
      ...(expiresInMs ? { expiresAt: new Date(Date.now() + expiresInMs).toISOString() } : {}),
      resume: {
        provider: run.provider, model: run.model, ...(run.user ? { user: run.user } : {}), ...(expiresInMs ? { expiresInMs } : {}),
      },
    });
  } finally {
    state.pausing = false;
  }
  await audit(kernel, run, call, asks, 'ask', `approval ${state.pending.id} requested`);
  throw new ApprovalPending(state.pending);
}

/**
 * What a run that stopped for an approval says about it: the call and why it asks, in one line.
 *
 * @example
 * approvalRef(a).summary // 'write_file {"path":"src/a.ts",…}: write of "src/a.ts" needs approval: …'
 */
export function approvalRef(approval: Pick<Approval, 'id' | 'tool' | 'args' | 'asks' | 'expiresAt'>): ApprovalRef {
  const args = JSON.stringify(approval.args);
  const shown = args.length > 160 ? `${args.slice(0, 159)}…` : args;
  return {
    id: approval.id, tool: approval.tool, summary: `${approval.tool} ${shown}${approval.asks.length ? `: ${approval.asks.map((a) => a.reason).join('; ')}` : ''}`,
    ...(approval.expiresAt ? { expiresAt: approval.expiresAt } : {}),
  };
}

/** The result the model gets for a call a person denied (or nobody decided in time). */
export function deniedResult(by: string, reason?: string): ToolResult {
  const why = by === 'timeout' ? 'nobody approved it in time'
    : by === 'nobody' ? `nobody could approve it: ${reason}` : `denied by ${by}${reason ? `: ${reason}` : ''}`;
  const sentence = why.startsWith('denied') ? `it was ${why}` : why;
  return { content: `Not run: this call needed a person's approval, and ${sentence}. Do not retry it unchanged; ask the user or do something else.`, isError: true, denied: why };
}

/** One sandbox event per action that asked (or the rule), with what became of it. */
async function audit(kernel: Kernel, run: RunContext, call: ToolCall, asks: ApprovalAsk[], decision: 'ask' | 'allow' | 'deny', origin: string): Promise<void> {
  if (!kernel.hasService('audit')) return;
  for (const ask of asks) {
    await kernel.service('audit').sandboxEvent({
      decision, kind: ask.action?.kind ?? 'tool', target: ask.action ? describeAction(ask.action) : call.name, reason: ask.reason, origin,
      agent: run.agent.name, sessionId: run.sessionId, runId: run.runId, toolCallId: call.id,
    }).catch((error) => kernel.log.warn(`audit: could not record an approval of ${call.name}: ${(error as Error).message}`));
  }
}
