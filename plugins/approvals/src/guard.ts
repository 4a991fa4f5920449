/**
 * The approvals plugin's taps: before a tool call runs, what asks for a person (the sandbox's
 * `ask` actions, a rule) gets a decision — one already given for exactly this call, the door's
 * person now, or a stored approval and a suspended run; before a new message, a session that
 * waits for a person refuses it (or denies and goes on).
 */
import type { ApprovalAsk, ApprovalRef, ApprovalStore, Approval, SandboxAction } from '@oryxos/contracts';
import { STAGE, type PluginContext, type RunContext, type Tool, type ToolCallInfo, type ToolResult, type Suspend } from '@oryxos/kernel';
import { describeAction } from '@oryxos/plugin-kit';
import { OryxError, type ToolCall } from '@oryxos/provider-spec';
import { argsHash, canonicalJson } from '@oryxos/schema-kit';
import { approvalsError } from './errors.ts';

/** What the guard is configured with. */
export interface GuardOptions {
  /** How long a stored approval waits, per door of the run that asks (`scheduler`: 1 h by default); none: until decided. */
  timeoutMs: Record<string, number>;
  /** `ask`: a tool an MCP server marks `destructiveHint` asks before every call. */
  destructive: 'ask' | 'allow';
}

/**
 * A stored approval in one line: the call and why it asks.
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
  const clause = why.startsWith('denied') ? `it was ${why}` : why;
  return { content: `Not run: this call needed a person's approval, and ${clause}. Do not retry it unchanged; ask the user or do something else.`, isError: true, denied: why };
}

/** Why a call asks by rule, or undefined: `approve:` in AGENT.md, the tool's own rule, an MCP `destructiveHint`. */
function ruleAsk(run: RunContext, tool: Tool, options: GuardOptions): ApprovalAsk | undefined {
  const listed = run.agent.extra.approve;
  if (listed !== undefined && !(Array.isArray(listed) && listed.every((t) => typeof t === 'string'))) {
    throw new OryxError('ORYX_E_AGENT_INVALID', `${run.agent.file}: field "approve" must be a list of tool names`, { hint: 'Write approve: [write_file, shell].', data: { file: run.agent.file, field: 'approve' } });
  }
  if ((listed as string[] | undefined)?.includes(tool.name)) return { reason: `${tool.name} needs approval: approve: [${tool.name}] in ${run.agent.file}` };
  if (tool.approval === 'always') return { reason: `${tool.name} needs approval: its plugin (${tool.plugin ?? 'unknown'}) asks before every call` };
  if (options.destructive === 'ask' && tool.annotations?.destructiveHint) return { reason: `${tool.name} needs approval: its server marks it destructive (approvals({ destructive: 'ask' }))` };
  return undefined;
}

/** The same actions, as the call declared them (an approval covers exactly what the person saw). */
const sameActions = (a: ApprovalAsk[], b: ApprovalAsk[]) =>
  canonicalJson(a.map((x) => x.action ?? null)) === canonicalJson(b.map((x) => x.action ?? null));

/**
 * Taps `beforeTool` (as a guard), `runStart` and `afterRun`: what the plugin does to runs.
 */
export function attachGuard(ctx: PluginContext, store: () => ApprovalStore, options: GuardOptions): void {
  /** Per run: tools a person approved "always". */
  const always = new Map<string, Map<string, string>>();
  /** Per run: set once a call stored an approval, so the calls beside it wait behind it instead of asking too. */
  const storing = new Set<string>();
  /** Per run: the door's question going on, so two calls of one response never ask at the same time. */
  const asking = new Map<string, Promise<unknown>>();

  const audit = async (run: RunContext, call: ToolCall, asks: ApprovalAsk[], decision: 'ask' | 'allow' | 'deny', origin: string) => {
    if (!ctx.hasService('audit')) return;
    for (const ask of asks) {
      await ctx.service('audit').sandboxEvent({
        decision, kind: ask.action?.kind ?? 'tool', target: ask.action ? describeAction(ask.action) : call.name, reason: ask.reason, origin,
        agent: run.agent.name, sessionId: run.sessionId, runId: run.runId, toolCallId: call.id,
      }).catch((error) => ctx.log.warn(`could not audit an approval of ${call.name}: ${(error as Error).message}`));
    }
  };

  /** The approval already stored for exactly this call (same session, call id, tool, arguments and actions), newest first. */
  const storedFor = async (info: ToolCallInfo, asks: ApprovalAsk[], hash: string): Promise<Approval | undefined> => {
    const [latest] = await store().list({ sessionId: info.run.sessionId, toolCallId: info.call.id, limit: 1 });
    if (!latest) return undefined;
    if (latest.tool === info.call.name && latest.argsHash === hash && sameActions(latest.asks, asks)) return latest;
    // The same call id with another tool, other arguments or other actions: that approval was not for this.
    await audit(info.run, info.call, asks, 'ask', `approval ${latest.id} does not cover this call (another tool, other arguments or other actions); asking again`);
    return undefined;
  };

  const grant = (info: ToolCallInfo, asks: ApprovalAsk[]) => {
    info.approved.push(...asks.flatMap((a): SandboxAction[] => (a.action ? [a.action] : [])));
  };

  ctx.hooks.beforeTool.tapPromise({ stage: STAGE.GUARD }, async (info): Promise<ToolResult | Suspend | undefined> => {
    const { run, call, tool } = info;
    if (!tool) return undefined;
    const rule = ruleAsk(run, tool, options);
    const asks = rule ? [rule, ...info.asks] : info.asks;
    if (!asks.length) return undefined;
    const hash = argsHash(call.args);
    const stored = await storedFor(info, asks, hash);
    if (stored?.status === 'approved' && await store().use(stored.id)) {
      await audit(run, call, asks, 'allow', `approval ${stored.id} by ${stored.decidedBy ?? 'unknown'}${stored.reason ? `: ${stored.reason}` : ''}`);
      grant(info, asks);
      return undefined;
    }
    if (stored?.status === 'denied' || stored?.status === 'expired') {
      await audit(run, call, asks, 'deny', `approval ${stored.id} by ${stored.decidedBy ?? 'unknown'}${stored.reason ? `: ${stored.reason}` : ''}`);
      return deniedResult(stored.decidedBy ?? 'unknown', stored.reason);
    }
    if (stored?.status === 'pending') return suspend(stored);
    if (storing.has(run.runId)) return { suspend: { by: 'approvals', reason: 'held: another call of this response waits for a person first' } };
    const before = asking.get(run.runId) ?? Promise.resolve();
    const turn = before.then(async () => {
      const mine = always.get(run.runId)?.get(tool.name);
      return mine ? { decision: 'approve' as const, by: mine, reason: `every ${tool.name} call of this run` }
        : storing.has(run.runId) ? undefined : ctx.askPerson(run, { kind: 'approval', call, tool, asks });
    });
    asking.set(run.runId, turn.catch(() => undefined));
    const answer = await turn;
    if (answer && 'decision' in answer) {
      await audit(run, call, asks, answer.decision === 'deny' ? 'deny' : 'allow', `approval by ${answer.by}${answer.reason ? `: ${answer.reason}` : ''}`);
      if (answer.decision === 'deny') return deniedResult(answer.by, answer.reason);
      if (answer.decision === 'always') always.set(run.runId, (always.get(run.runId) ?? new Map()).set(tool.name, answer.by));
      grant(info, asks);
      return undefined;
    }
    // A sub-agent's run cannot stop its caller's tool call half-way: nobody could decide.
    if (run.parentRunId) {
      const why = 'a sub-agent cannot wait for a person (only its caller\'s own calls can); nobody decided in this process';
      await audit(run, call, asks, 'deny', 'approval: nobody could be asked');
      return deniedResult('nobody', why);
    }
    if (storing.has(run.runId)) return { suspend: { by: 'approvals', reason: 'held: another call of this response waits for a person first' } };
    storing.add(run.runId);
    const timeout = run.door ? options.timeoutMs[run.door] : undefined;
    const approval = await store().request({
      runId: run.runId, sessionId: run.sessionId, agent: run.agent.name, tool: call.name, toolCallId: call.id, args: call.args, argsHash: hash, asks,
      ...(timeout ? { expiresAt: new Date(Date.now() + timeout).toISOString() } : {}),
    });
    await audit(run, call, asks, 'ask', `approval ${approval.id} requested`);
    return suspend(approval);
  });

  ctx.hooks.runStart.tapPromise({ stage: STAGE.GUARD }, async (run) => {
    if (run.continued || run.parentRunId) return;
    const [waiting] = await store().list({ status: 'pending', sessionId: run.sessionId, limit: 1 });
    if (!waiting) return;
    // Asked by a run whose process died before it could suspend (recorded `crashed`, or ended
    // otherwise): nothing can continue it, so it must not hold the session. Denied, and the new
    // message closes the run's open calls (a started one as interrupted, never run again).
    const asker = ctx.hasService('runRecords') ? await ctx.service('runRecords').get(waiting.runId) : undefined;
    if (asker && asker.stopReason !== 'suspended' && asker.stopReason !== 'running') {
      const reason = `its run ended (${asker.stopReason}) before it could wait for a decision`;
      const dropped = await store().decide(waiting.id, { decision: 'deny', by: 'new-message', reason }).catch(() => undefined);
      if (dropped) await audit(run, { id: dropped.toolCallId, name: dropped.tool, args: dropped.args }, dropped.asks, 'deny', `approval ${dropped.id} by new-message: ${reason}`);
      return;
    }
    if (run.agent.settings.pending_approval !== 'deny') {
      throw approvalsError('ORYX_E_APPROVAL_WAITING', `Session ${run.sessionId} waits for approval ${waiting.id} (${approvalRef(waiting).summary}); it takes no new message until that is decided`, {
        hint: `Decide it first: \`oryx approvals approve ${waiting.id.slice(0, 8)}\` or \`oryx approvals deny ${waiting.id.slice(0, 8)}\` `
          + `(POST /api/approvals/${waiting.id}), or set settings.pending_approval: deny in ${run.agent.file} to deny it and go on.`,
        data: { approvalId: waiting.id, sessionId: run.sessionId },
      });
    }
    // Denied by the new message; another decider may have won meanwhile, and theirs stands.
    const decided = await store().decide(waiting.id, { decision: 'deny', by: 'new-message', reason: 'a new message came instead of a decision' }).catch(() => undefined);
    if (decided) await audit(run, { id: decided.toolCallId, name: decided.tool, args: decided.args }, decided.asks, 'deny', `approval ${decided.id} by new-message: ${decided.reason}`);
  });

  ctx.hooks.afterRun.tapPromise(async (_result, run) => {
    always.delete(run.runId);
    storing.delete(run.runId);
    asking.delete(run.runId);
  });
}

/** What the run stops with at a call that waits for `approval`. */
function suspend(approval: Approval): Suspend {
  return { suspend: { by: 'approvals', reason: approvalRef(approval).summary, data: { approvalId: approval.id } } };
}
