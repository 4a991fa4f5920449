import { Args } from '@oclif/core';
import { OryxCommand } from '@oryxos/command-kit';
import { schedulerOf } from '../../cli.ts';
import type { TaskInfo } from '../../rows.ts';

export default class ScheduleEnable extends OryxCommand {
  static override summary = 'Enable a task added at run time; the slots it slept through are not missed.';
  static override examples = ['<%= config.bin %> schedule enable inbox'];
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ description: 'Task name.', required: true }) };

  async run(): Promise<TaskInfo> {
    const { args } = await this.parse(ScheduleEnable);
    const { kernel } = await this.boot();
    const task = await schedulerOf(kernel).setEnabled(args.name, true);
    if (!this.jsonEnabled()) this.log(`Enabled task ${task.name}.`);
    return task;
  }
}
