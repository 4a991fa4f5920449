import { Flags } from '@oclif/core';
import { APPROVAL_ID, DecideCommand, type DecidedJson } from '../../decide-command.ts';

export default class ApprovalsDeny extends DecideCommand {
  static override summary = 'Deny a pending tool call (its id or a unique prefix of it); the model gets the reason.';
  static override examples = ['<%= config.bin %> approvals deny 3f2a9c1e --reason "not on a Friday"'];
  static override args = APPROVAL_ID;
  static override flags = { reason: Flags.string({ char: 'r', summary: 'Why: the model sees it in the denial result.' }) };

  async run(): Promise<DecidedJson> {
    const { args, flags } = await this.parse(ApprovalsDeny);
    return this.decide(args.id, 'deny', flags.reason);
  }
}
