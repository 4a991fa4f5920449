import { Flags } from '@oclif/core';
import { OryxCommand, table, camelKeys, listJson, type CamelKeys, type ListJson } from '@oryxos/command-kit';
import { filterFlags, shortId, shortTime } from '../../flags.ts';
import { approvalKey, approvalsOf, listToolInvocations, type ToolCallApproval, type ToolInvocationRow } from '../../queries.ts';

export default class AuditTools extends OryxCommand {
  static override readOnly = true;
  static override summary = 'List tool calls (tool_invocations): inputs, outputs, errors, denials, and who approved a call that waited for a person.';
  static override examples = [
    '<%= config.bin %> audit tools',
    '<%= config.bin %> audit tools --status denied',
    '<%= config.bin %> audit tools --session 3f2a9c1e --tool shell --json',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    ...filterFlags,
    status: Flags.string({ summary: 'Only calls with this status.', options: ['ok', 'error', 'denied', 'interrupted'] }),
    tool: Flags.string({ char: 't', summary: 'Only calls of this tool.' }),
  };

  async run(): Promise<ListJson<CamelKeys<ToolInvocationRow> & { approval: ToolCallApproval | null }>> {
    const { flags } = await this.parse(AuditTools);
    const { kernel } = await this.boot();
    const db = kernel.service('database');
    const rows = await listToolInvocations(db, flags);
    const approvals = await approvalsOf(db, rows);
    const approvalOf = (r: ToolInvocationRow) => approvals.get(approvalKey(r)) ?? null;
    if (!this.jsonEnabled()) {
      if (rows.length === 0) this.log('No tool calls recorded (with these filters).');
      else {
        this.log(table(rows.map((r) => ({
          id: r.id, time: shortTime(r.created_at), session: shortId(r.session_id), agent: r.agent, iter: r.iteration, tool: r.tool,
          source: r.source ?? '-', status: r.status, ms: r.duration_ms, approval: shownApproval(approvalOf(r)), input: r.input,
          result: r.status === 'denied' ? r.denied_reason : r.output,
        }))));
      }
    }
    return listJson(rows.map((r) => ({ ...camelKeys(r), approval: approvalOf(r) })));
  }
}

/** `approved by alice`, `denied by alice: not now`, or `-`. */
function shownApproval(approval: ToolCallApproval | null): string {
  return approval ? `${approval.decision} by ${approval.by}${approval.reason ? `: ${approval.reason}` : ''}` : '-';
}
