import { Flags } from '@oclif/core';
import { OryxCommand, table, camelKeys, listJson, type CamelKeys, type ListJson } from '@oryxos/command-kit';
import { filterFlags, shortId, shortTime } from '../../flags.ts';
import { listSandboxEvents, type SandboxEventRow } from '../../queries.ts';

export default class AuditSandbox extends OryxCommand {
  static override readOnly = true;
  static override summary = 'List sandbox events (sandbox_events): every denial and every connection of a confined process.';
  static override examples = [
    '<%= config.bin %> audit sandbox',
    '<%= config.bin %> audit sandbox --decision deny',
    '<%= config.bin %> audit sandbox --session 3f2a9c1e --json',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    ...filterFlags,
    decision: Flags.string({ summary: 'Only events with this decision.', options: ['allow', 'deny', 'ask'] }),
  };

  async run(): Promise<ListJson<CamelKeys<SandboxEventRow>>> {
    const { flags } = await this.parse(AuditSandbox);
    const { kernel } = await this.boot();
    const rows = await listSandboxEvents(kernel.service('database'), { ...flags, status: flags.decision });
    if (!this.jsonEnabled()) {
      if (rows.length === 0) this.log('No sandbox events recorded (with these filters).');
      else {
        this.log(table(rows.map((r) => ({
          id: r.id, time: shortTime(r.created_at), session: shortId(r.session_id), agent: r.agent ?? '-', decision: r.decision, kind: r.kind,
          target: r.target, origin: r.origin ?? '-', process: r.pid ? `${r.pid} ${r.process ?? ''}` : '-', reason: r.reason ?? '',
        }))));
      }
    }
    return listJson(rows.map(camelKeys));
  }
}
