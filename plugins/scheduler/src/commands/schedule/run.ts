import { Args } from '@oclif/core';
import { OryxCommand, camelKeys, type CamelKeys } from '@oryxos/command-kit';
import { describeExecution, schedulerOf } from '../../cli.ts';
import type { ExecutionRow } from '../../queries.ts';

export default class ScheduleRun extends OryxCommand {
  static override summary = 'Run a task now, recorded like a scheduled run (and its result mailed to its channel).';
  static override description = 'The slot is the current time and the task\'s overlap rule applies: with overlap skip, a run of the task '
    + 'still going (here or in another process) makes this one skipped. Exits 0 when the run is ok, 1 otherwise.';
  static override examples = ['<%= config.bin %> schedule run morning-brief', '<%= config.bin %> schedule run morning-brief --json'];
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ description: 'Task name.', required: true }) };

  async run(): Promise<CamelKeys<ExecutionRow>> {
    const { args } = await this.parse(ScheduleRun);
    const { kernel } = await this.boot();
    const execution = await schedulerOf(kernel).run(args.name);
    const json = camelKeys(execution);
    if (this.jsonEnabled()) {
      if (execution.status !== 'ok') { this.logJson(json); this.exit(1); }
      return json;
    }
    if (execution.answer) this.log(execution.answer);
    this.logToStderr(describeExecution(execution));
    if (execution.status !== 'ok') this.exit(1);
    return json;
  }
}
