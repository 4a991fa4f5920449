import { Flags } from '@oclif/core';
import { OryxCommand, table } from '@oryxos/plugin-cli';
import { filterFlags, shortId, shortTime } from '../../flags.ts';
import { listToolInvocations, type ToolInvocationRow } from '../../queries.ts';
import { camelKeys, listJson, type CamelKeys, type ListJson } from '@oryxos/plugin-cli';

export default class AuditTools extends OryxCommand {
  static override readOnly = true;
  static override summary = 'List tool calls (tool_invocations): inputs, outputs, errors and denials.';
  static override examples = [
    '<%= config.bin %> audit tools',
    '<%= config.bin %> audit tools --status denied',
    '<%= config.bin %> audit tools --session 3f2a9c1e --tool shell --json',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    ...filterFlags,
    status: Flags.string({ summary: 'Only calls with this status.', options: ['ok', 'error', 'denied'] }),
    tool: Flags.string({ char: 't', summary: 'Only calls of this tool.' }),
  };

  async run(): Promise<ListJson<CamelKeys<ToolInvocationRow>>> {
    const { flags } = await this.parse(AuditTools);
    const { kernel } = await this.boot();
    const rows = await listToolInvocations(kernel.service('database'), flags);
    if (!this.jsonEnabled()) {
      if (rows.length === 0) this.log('No tool calls recorded (with these filters).');
      else {
        this.log(table(rows.map((r) => ({
          id: r.id, time: shortTime(r.created_at), session: shortId(r.session_id), agent: r.agent, iter: r.iteration, tool: r.tool,
          source: r.source ?? '-', status: r.status, ms: r.duration_ms, input: r.input,
          result: r.status === 'denied' ? r.denied_reason : r.output,
        }))));
      }
    }
    return listJson(rows.map(camelKeys));
  }
}
