import { OryxCommand } from '@oryxos/plugin-cli/command';
import { APPROVAL_ID } from '../../decide-command.ts';
import { resolveApproval } from '../../approval-id.ts';

export default class ApprovalsResume extends OryxCommand {
  static override summary = 'Resume the run of a decided approval whose run did not go on (its process stopped between the decision and the resume).';
  static override description = 'Deciding (`approve`, `deny`, POST /api/approvals/:id, the console) resumes the run at once; this is for when '
    + 'that process died first. Refused (ORYX_E_APPROVAL_NOT_RESUMABLE) while the approval is pending, or once its call has a result.';
  static override examples = ['<%= config.bin %> approvals resume 3f2a9c1e'];
  static override args = APPROVAL_ID;

  async run(): Promise<void> {
    const { args } = await this.parse(ApprovalsResume);
    const { kernel, service } = await this.boot();
    const approval = await resolveApproval(kernel.service('approvals'), args.id);
    const run = await service.resume(approval.id);
    if (run.answer) this.log(run.answer);
    if (run.stopReason === 'approval' && run.approval) this.logToStderr(`note: the run waits for another approval: ${run.approval.id.slice(0, 8)} ${run.approval.summary}`);
    else if (run.stopReason !== 'final') this.logToStderr(`note: ${run.error ? `${run.error.code}: ${run.error.message}` : run.notice ?? run.stopReason}; session ${run.sessionId}`);
    if (run.stopReason === 'error') process.exitCode = 1;
  }
}
