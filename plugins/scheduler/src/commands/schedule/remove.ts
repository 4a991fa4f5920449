import { Args } from '@oclif/core';
import { OryxCommand } from '@oryxos/command-kit';
import { schedulerOf } from '../../cli.ts';

export default class ScheduleRemove extends OryxCommand {
  static override summary = 'Remove a task added at run time (its executions are kept).';
  static override examples = ['<%= config.bin %> schedule remove inbox'];
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ description: 'Task name.', required: true }) };

  async run(): Promise<{ name: string; removed: true }> {
    const { args } = await this.parse(ScheduleRemove);
    const { kernel } = await this.boot();
    await schedulerOf(kernel).remove(args.name);
    if (!this.jsonEnabled()) this.log(`Removed task ${args.name}.`);
    return { name: args.name, removed: true };
  }
}
