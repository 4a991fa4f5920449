import { Args } from '@oclif/core';
import { OryxCommand } from '@oryxos/command-kit';
import { schedulerOf } from '../../cli.ts';
import type { TaskInfo } from '../../rows.ts';

export default class ScheduleDisable extends OryxCommand {
  static override summary = 'Disable a task added at run time: it stops firing until enabled.';
  static override examples = ['<%= config.bin %> schedule disable inbox'];
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ description: 'Task name.', required: true }) };

  async run(): Promise<TaskInfo> {
    const { args } = await this.parse(ScheduleDisable);
    const { kernel } = await this.boot();
    const task = await schedulerOf(kernel).setEnabled(args.name, false);
    if (!this.jsonEnabled()) this.log(`Disabled task ${task.name}.`);
    return task;
  }
}
