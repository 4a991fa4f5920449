import { Args } from '@oclif/core';
import { OryxCommand } from '@oryxos/plugin-cli/command';
import { approvalRef, errorMessage, type Approval, type RunResult } from '@oryxos/kernel';
import { resolveApproval } from './approval-id.ts';

/** What `approvals approve` and `approvals deny` print with --json: the approval as decided, and how its resumed run ended. */
export type DecidedJson = Approval & { run?: RunResult };

/** The argument of `approvals approve` and `approvals deny` (each command declares it: oclif reads its own statics). */
export const APPROVAL_ID = { id: Args.string({ description: 'Approval id (or a unique prefix of it).', required: true }) };

/** `approvals approve` and `approvals deny`: decide the approval the argument names, as `cli`. */
export abstract class DecideCommand extends OryxCommand {
  static override enableJsonFlag = true;

  /**
   * Decides, then resumes the run in this process (its session is locked like any run's): the
   * approved call runs, or the model gets the denial, and the loop goes on to its answer.
   */
  protected async decide(id: string, decision: 'approve' | 'deny', reason?: string): Promise<DecidedJson> {
    const { kernel, service } = await this.boot();
    const store = kernel.service('approvals');
    const approval = await resolveApproval(store, id);
    const decided = await store.decide(approval.id, { decision, by: 'cli', ...(reason ? { reason } : {}) });
    const people = !this.jsonEnabled();
    if (people) this.log(`${decision === 'approve' ? 'Approved' : 'Denied'} ${decided.id.slice(0, 8)}: ${approvalRef(decided).summary}`);
    let run: RunResult;
    try {
      run = await service.resume(decided.id);
    } catch (error) {
      // The decision stands; only going on failed (the session moved on, the model is down).
      process.exitCode = 1;
      this.logToStderr(`warning: the decision is recorded, but its run did not resume: ${errorMessage(error)}`
        + ` (retry with \`${this.config.bin} approvals resume ${decided.id.slice(0, 8)}\`)`);
      return decided;
    }
    if (people) {
      if (run.answer) this.log(run.answer);
      if (run.stopReason === 'approval' && run.approval) {
        this.logToStderr(`note: the run waits for another approval: ${run.approval.id.slice(0, 8)} ${run.approval.summary}`);
      } else if (run.stopReason !== 'final') {
        this.logToStderr(`note: ${run.error ? `${run.error.code}: ${run.error.message}` : run.notice ?? run.stopReason}; session ${run.sessionId}`);
      }
    }
    if (run.stopReason === 'error') process.exitCode = 1;
    return { ...decided, run };
  }
}
