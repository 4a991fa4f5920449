import { OryxCommand } from '@oryxos/command-kit';
import { APPROVAL_ID, reportRun } from '../../decide-command.ts';
import { resolveApproval } from '../../approval-id.ts';

export default class ApprovalsResume extends OryxCommand {
  static override summary = 'Continue the run of a decided approval whose run did not go on (its process stopped between the decision and the continue).';
  static override description = 'Deciding (`approve`, `deny`, POST /api/approvals/:id, the console) continues the run at once; this is for when '
    + 'that process died first. Refused (ORYX_E_RUN_NOT_CONTINUABLE) once its call has a result. A call that had started when its process died '
    + 'is not run again: the model is told it was interrupted.';
  static override examples = ['<%= config.bin %> approvals resume 3f2a9c1e'];
  static override args = APPROVAL_ID;

  async run(): Promise<void> {
    const { args } = await this.parse(ApprovalsResume);
    const { kernel } = await this.boot();
    const approval = await resolveApproval(kernel.service('approvals'), args.id);
    const run = await kernel.runs.continue(approval.runId);
    reportRun(this, run);
    if (run.stopReason === 'error') process.exitCode = 1;
  }
}
