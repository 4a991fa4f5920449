import { Flags } from '@oclif/core';
import { OryxCommand, listJson, table, type ListJson } from '@oryxos/command-kit';
import { approvalRef } from '../../guard.ts';
import type { Approval, ApprovalStatus } from '@oryxos/contracts';
import { resolveSessionId as resolveSession } from '@oryxos/command-kit';

/** A table cell of at most `max` characters. */
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export default class Approvals extends OryxCommand {
  static override readOnly = true;
  static override aliases = ['approvals:list'];
  static override summary = 'List tool calls waiting for a person\'s approval (pending first), from any process on the database.';
  static override description = 'Approve one with `oryx approvals approve ID`, deny it with `oryx approvals deny ID --reason "…"`; '
    + 'ids may be shortened to a unique prefix.';
  static override examples = [
    '<%= config.bin %> approvals',
    '<%= config.bin %> approvals list --status all --session 3f2a9c1e',
    '<%= config.bin %> approvals --json',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    status: Flags.string({ summary: 'Which approvals.', options: ['pending', 'approved', 'used', 'denied', 'expired', 'all'], default: 'pending' }),
    session: Flags.string({ char: 's', summary: 'Only the approvals of this session (its id or a unique prefix of it).' }),
    limit: Flags.integer({ char: 'n', summary: 'How many.', default: 20, min: 1, max: 1000 }),
  };

  async run(): Promise<ListJson<Approval>> {
    const { flags } = await this.parse(Approvals);
    const { kernel } = await this.boot();
    const session = flags.session ? await resolveSession(kernel.service('sessions'), flags.session) : undefined;
    const items = await kernel.service('approvals').list({
      ...(flags.status === 'all' ? {} : { status: flags.status as ApprovalStatus }), ...(session ? { sessionId: session.id } : {}), limit: flags.limit,
    });
    if (!this.jsonEnabled()) {
      if (items.length === 0) this.log(flags.status === 'pending' ? 'No approvals are pending.' : 'No approvals.');
      else {
        this.log(table(items.map((a) => ({
          id: a.id.slice(0, 8), status: a.status, session: a.sessionId.slice(0, 8), agent: a.agent, asked: a.requestedAt.replace('T', ' ').slice(0, 19),
          decided: a.decidedBy ?? (a.expiresAt ? `expires ${a.expiresAt.replace('T', ' ').slice(0, 16)}` : ''), what: cut(approvalRef(a).summary, 80),
        })), ['id', 'status', 'session', 'agent', 'asked', 'decided', 'what']));
      }
    }
    return listJson(items);
  }
}
