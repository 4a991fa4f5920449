import { Flags } from '@oclif/core';
import { OryxCommand, table } from '@oryxos/plugin-cli';
import { filterFlags, shortId, shortTime } from '../../flags.ts';
import { listLlmCalls, type LlmCallRow } from '../../queries.ts';
import { camelKeys, listJson, type CamelKeys, type ListJson } from '@oryxos/plugin-cli';

export default class AuditLlm extends OryxCommand {
  static override readOnly = true;
  static override summary = 'List model calls (llm_calls): tokens, latency, failures and retries.';
  static override examples = [
    '<%= config.bin %> audit llm',
    '<%= config.bin %> audit llm --status error --limit 20',
    '<%= config.bin %> audit llm --session 3f2a9c1e --json',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    ...filterFlags,
    status: Flags.string({ summary: 'Only calls with this status.', options: ['ok', 'error'] }),
  };

  async run(): Promise<ListJson<CamelKeys<LlmCallRow>>> {
    const { flags } = await this.parse(AuditLlm);
    const { kernel } = await this.boot();
    const rows = await listLlmCalls(kernel.service('database'), flags);
    if (!this.jsonEnabled()) {
      if (rows.length === 0) this.log('No model calls recorded (with these filters).');
      else {
        this.log(table(rows.map((r) => ({
          id: r.id, time: shortTime(r.created_at), session: shortId(r.session_id), agent: r.agent, iter: r.iteration, try: r.attempt,
          model: r.model, in: r.input_tokens, out: r.output_tokens, ms: r.latency_ms, finish: r.finish_reason, status: r.status,
          error: r.error ? `${r.error_code}: ${r.error}` : '',
        }))));
      }
    }
    return listJson(rows.map(camelKeys));
  }
}
