import { Args } from '@oclif/core';
import { OryxCommand } from '@oryxos/plugin-cli';
import type { Approval } from '@oryxos/plugin-kit';
import { approvalSummary, resolveApproval } from './approval-id.ts';

/** What `approvals approve` and `approvals deny` print with --json: the approval as decided. */
export type DecidedJson = Approval;

/** The argument of `approvals approve` and `approvals deny` (each command declares it: oclif reads its own statics). */
export const APPROVAL_ID = { id: Args.string({ description: 'Approval id (or a unique prefix of it).', required: true }) };

/** `approvals approve` and `approvals deny`: decide the approval the argument names, as `cli`. */
export abstract class DecideCommand extends OryxCommand {
  static override enableJsonFlag = true;

  protected async decide(id: string, decision: 'approve' | 'deny', reason?: string): Promise<DecidedJson> {
    const { kernel } = await this.boot();
    const store = kernel.service('approvals');
    const approval = await resolveApproval(store, id);
    const decided = await store.decide(approval.id, { decision, by: 'cli', ...(reason ? { reason } : {}) });
    if (!this.jsonEnabled()) this.log(`${decision === 'approve' ? 'Approved' : 'Denied'} ${decided.id.slice(0, 8)}: ${approvalSummary(decided)}`);
    return decided;
  }
}
