import { Flags } from '@oclif/core';
import { APPROVAL_ID, DecideCommand, type DecidedJson } from '../../decide-command.ts';

export default class ApprovalsApprove extends DecideCommand {
  static override summary = 'Approve a pending tool call (its id or a unique prefix of it).';
  static override examples = ['<%= config.bin %> approvals approve 3f2a9c1e', '<%= config.bin %> approvals approve 3f2a9c1e --json'];
  static override args = APPROVAL_ID;
  static override flags = { reason: Flags.string({ char: 'r', summary: 'Why, for the audit trail.' }) };

  async run(): Promise<DecidedJson> {
    const { args, flags } = await this.parse(ApprovalsApprove);
    return this.decide(args.id, 'approve', flags.reason);
  }
}
