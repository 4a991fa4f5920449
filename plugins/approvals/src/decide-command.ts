import { Args } from '@oclif/core';
import type { Approval } from '@oryxos/contracts';
import type { RunResult } from '@oryxos/kernel';
import { OryxCommand } from '@oryxos/command-kit';
import { errorMessage } from '@oryxos/provider-spec';
import { resolveApproval } from './approval-id.ts';
import { approvalRef } from './guard.ts';

/** What `approvals approve` and `approvals deny` print with --json: the approval as decided, and how its continued run ended. */
export type DecidedJson = Approval & { run?: RunResult };

/** The argument of `approvals approve`, `deny` and `resume` (each command declares it: oclif reads its own statics). */
export const APPROVAL_ID = { id: Args.string({ description: 'Approval id (or a unique prefix of it).', required: true }) };

/** `approvals approve` and `approvals deny`: decide the approval the argument names, as `cli`. */
export abstract class DecideCommand extends OryxCommand {
  static override enableJsonFlag = true;

  /**
   * Decides, then continues the run in this process (its session is locked like any run's): the
   * approved call runs, or the model gets the denial, and the loop goes on to its answer.
   */
  protected async decide(id: string, decision: 'approve' | 'deny', reason?: string): Promise<DecidedJson> {
    const { kernel } = await this.boot();
    const store = kernel.service('approvals');
    const approval = await resolveApproval(store, id);
    const decided = await store.decide(approval.id, { decision, by: 'cli', ...(reason ? { reason } : {}) });
    const people = !this.jsonEnabled();
    if (people) this.log(`${decision === 'approve' ? 'Approved' : 'Denied'} ${decided.id.slice(0, 8)}: ${approvalRef(decided).summary}`);
    let run: RunResult;
    try {
      run = await kernel.runs.continue(decided.runId);
    } catch (error) {
      // The decision stands; only going on failed (the session moved on, the model is down).
      process.exitCode = 1;
      this.logToStderr(`warning: the decision is recorded, but its run did not continue: ${errorMessage(error)}`
        + ` (retry with \`${this.config.bin} approvals resume ${decided.id.slice(0, 8)}\`)`);
      return decided;
    }
    if (people) reportRun(this, run);
    if (run.stopReason === 'error') process.exitCode = 1;
    return { ...decided, run };
  }
}

/** How a continued run ended, for people: its answer, and a note when it stopped short. */
export function reportRun(command: { log(m: string): void; logToStderr(m: string): void }, run: RunResult): void {
  if (run.answer) command.log(run.answer);
  const waiting = run.suspended?.[0];
  const id = typeof waiting?.data?.approvalId === 'string' ? waiting.data.approvalId : undefined;
  if (run.stopReason === 'suspended' && waiting) command.logToStderr(id ? `note: the run waits for another approval: ${id.slice(0, 8)} ${waiting.reason}` : `note: the run waits: ${waiting.reason}`);
  else if (run.stopReason !== 'final') command.logToStderr(`note: ${run.error ? `${run.error.code}: ${run.error.message}` : run.notice ?? run.stopReason}; session ${run.sessionId}`);
}
