import { OryxCommand, table, camelKeys, listJson, type CamelKeys, type ListJson } from '@oryxos/command-kit';
import { filterFlags, shortTime } from '../../flags.ts';
import { summarize, type SessionSummary } from '../../queries.ts';

export default class AuditSummary extends OryxCommand {
  static override readOnly = true;
  static override summary = 'One line per session: model calls, tokens (cached: from the provider\'s prompt cache), failures, tool calls, tool errors, denials.';
  static override examples = ['<%= config.bin %> audit summary', '<%= config.bin %> audit summary --agent researcher --json'];
  static override enableJsonFlag = true;
  static override flags = { ...filterFlags };

  async run(): Promise<ListJson<CamelKeys<SessionSummary>>> {
    const { flags } = await this.parse(AuditSummary);
    const { kernel } = await this.boot();
    const rows = await summarize(kernel.service('database'), flags);
    if (!this.jsonEnabled()) {
      if (rows.length === 0) this.log('Nothing recorded yet.');
      else {
        this.log(table(rows.map((r) => ({
          session: r.session_id, agent: r.agent, calls: r.llm_calls, 'tokens in': r.input_tokens, cached: r.cache_read_tokens ?? '', 'tokens out': r.output_tokens,
          failures: r.llm_failures, tools: r.tool_calls, 'tool errors': r.tool_errors, denials: r.denials, last: shortTime(r.last_at),
        }))));
      }
    }
    return listJson(rows.map(camelKeys));
  }
}
