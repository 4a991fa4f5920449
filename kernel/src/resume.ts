/**
 * Where a paused run goes on: the stored step whose calls wait (resume), and what a new message
 * does to a session that waits for an approval (refuse, or deny and go on).
 */
import { approvalRef, auditDecision, deniedResult, grant } from './approval.ts';
import { OryxError } from './errors.ts';
import { ToolExecutor } from './executor.ts';
import type { Kernel } from './kernel.ts';
import type {
  AgentDefinition, Approval, AssistantMessage, RunContext, SessionStore, StoredMessage, Tool, ToolCall, ToolMessage, ToolResult,
} from './types.ts';

/** The stored response a resumed run goes on from: its calls that have no result yet, and the results some get instead. */
export interface ResumePoint { response: AssistantMessage; calls: ToolCall[]; results: Map<string, ToolResult> }

function notResumable(approval: Pick<Approval, 'id'>, why: string): OryxError {
  return new OryxError('ORYX_E_APPROVAL_NOT_RESUMABLE', `Approval ${approval.id} cannot resume its run: ${why}`, {
    hint: 'List approvals with `oryx approvals --status all` (or GET /api/approvals?status=all); send the session a new message to go on.',
    data: { approvalId: approval.id },
  });
}

/** The last stored response with tool calls, and its calls that have no result yet. */
function openStep(stored: StoredMessage[]): { response: AssistantMessage; open: ToolCall[]; after: StoredMessage[] } | undefined {
  for (let i = stored.length - 1; i >= 0; i--) {
    const m = stored[i]!.message;
    if (m.role === 'user') return undefined;
    if (m.role !== 'assistant' || !m.toolCalls?.length) continue;
    const after = stored.slice(i + 1);
    const answered = new Set(after.flatMap((s) => (s.message.role === 'tool' ? [s.message.toolCallId] : [])));
    return { response: m, open: m.toolCalls.filter((c) => !answered.has(c.id)), after };
  }
  return undefined;
}

/**
 * Checks that the approval's call is still the last step of its session without a result, and
 * gives the run what it needs to go on: a grant for exactly the approved actions, or the
 * denial the model gets (denied, expired).
 */
export function resumePoint(run: RunContext, stored: StoredMessage[], approval: Approval): ResumePoint {
  if (approval.status === 'pending') throw notResumable(approval, 'it is still pending; approve or deny it first');
  const step = openStep(stored);
  if (!step || !step.response.toolCalls!.some((c) => c.id === approval.toolCallId)) {
    throw notResumable(approval, `its call ${approval.toolCallId} is no longer the last step of session ${approval.sessionId} (a new message came after it)`);
  }
  if (!step.open.some((c) => c.id === approval.toolCallId) || step.after.some((s) => s.message.role === 'assistant')) {
    throw notResumable(approval, `its call ${approval.toolCallId} already has a result: the run was resumed before`);
  }
  const results = new Map<string, ToolResult>();
  if (approval.status === 'approved') grant(run, approval);
  else results.set(approval.toolCallId, deniedResult(approval.decidedBy ?? 'unknown', approval.reason));
  return { response: step.response, calls: step.open, results };
}

/** The pending approval a session waits for, if any (none without an approvals service). */
export async function waitingOn(kernel: Kernel, sessionId: string): Promise<Approval | undefined> {
  if (!kernel.hasService('approvals')) return undefined;
  return (await kernel.service('approvals').list({ status: 'pending', sessionId, limit: 1 }))[0];
}

/** A new message on a session that waits for an approval, with `pending_approval: refuse` (the default). */
export function waitingError(sessionId: string, approval: Approval, agent: AgentDefinition): OryxError {
  return new OryxError('ORYX_E_APPROVAL_WAITING', `Session ${sessionId} waits for approval ${approval.id} (${approvalRef(approval).summary}); it takes no new message until that is decided`, {
    hint: `Decide it first: \`oryx approvals approve ${approval.id.slice(0, 8)}\` or \`oryx approvals deny ${approval.id.slice(0, 8)}\` `
      + `(POST /api/approvals/${approval.id}), or set settings.pending_approval: deny in ${agent.file} to deny it and go on.`,
    data: { approvalId: approval.id, sessionId },
  });
}

/**
 * `pending_approval: deny`: denies the approval the session waits for (decided by
 * `new-message`) and commits a result for every call of that step that has none, so the new
 * message starts from a whole history. Another decider may have won meanwhile; theirs stands
 * and the resume it started (or will start) finds the step answered.
 */
export async function denyWaiting(kernel: Kernel, store: SessionStore, run: RunContext, approval: Approval, stored: StoredMessage[]): Promise<boolean> {
  const decided = await kernel.service('approvals').decide(approval.id, {
    decision: 'deny', by: 'new-message', reason: 'a new message came instead of a decision',
  }).catch(() => undefined);
  if (!decided) return false;
  const step = openStep(stored);
  if (!step) return false;
  // Audited as any denial is: the decision, then each call's result through afterTool.
  await auditDecision(kernel, run, decided);
  const executor = new ToolExecutor(kernel);
  const results: ToolMessage[] = [];
  for (const c of step.open) {
    const instead = c.id === approval.toolCallId ? deniedResult('new-message', decided.reason) : { content: 'Not run: a new message came before this call ran.', isError: true };
    const outcome = await executor.execute(c, run, NO_TOOLS, 0, instead);
    if ('message' in outcome) results.push(outcome.message); // with a result given, a call never waits
  }
  await store.append(run.sessionId, results.map((m) => kernel.secrets.message(m)));
  return true;
}

const NO_TOOLS = new Map<string, Tool>();
