import { Args, Flags } from '@oclif/core';
import { OryxCommand, table, camelKeys, listJson, type CamelKeys, type ListJson } from '@oryxos/command-kit';
import { schedulerOf, shortTime } from '../../cli.ts';
import type { ExecutionRow } from '../../queries.ts';

export default class ScheduleHistory extends OryxCommand {
  static override readOnly = true;
  static override summary = 'A task\'s executions, newest slot first: status, session, error, mail.';
  static override examples = [
    '<%= config.bin %> schedule history morning-brief',
    '<%= config.bin %> schedule history morning-brief --status error --limit 20',
    '<%= config.bin %> schedule history morning-brief --json',
  ];
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ description: 'Task name (a removed task\'s history is still there).', required: true }) };
  static override flags = {
    limit: Flags.integer({ char: 'n', summary: 'At most this many executions.', default: 50, min: 1, max: 10_000 }),
    status: Flags.string({ summary: 'Only executions with this status.', options: ['ok', 'error', 'skipped', 'timeout', 'missed', 'waiting', 'running', 'queued'] }),
  };

  async run(): Promise<ListJson<CamelKeys<ExecutionRow>> & { task: string }> {
    const { args, flags } = await this.parse(ScheduleHistory);
    const { kernel } = await this.boot();
    const rows = await schedulerOf(kernel).executions(args.name, { limit: flags.limit, status: flags.status });
    if (!this.jsonEnabled()) {
      if (rows.length === 0) this.log(`Task ${args.name} has no executions yet.`);
      else {
        this.log(table(rows.map((e) => ({
          slot: shortTime(e.slot), status: e.status, by: e.fired_by, ms: e.duration_ms ?? '', session: e.session_id?.slice(0, 8) ?? '',
          mail: e.notify_status ?? '', error: e.error_code ? `${e.error_code}: ${e.error}` : '', answer: e.answer ?? '',
        }))));
      }
    }
    return listJson(rows.map((r) => camelKeys(r)), undefined, { task: args.name });
  }
}
