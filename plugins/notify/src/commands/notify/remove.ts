import { Args } from '@oclif/core';
import { OryxCommand } from '@oryxos/command-kit';
import { notifierOf } from '../../cli.ts';

export default class NotifyRemove extends OryxCommand {
  static override summary = 'Remove a channel added at run time (its sends stay in notifications).';
  static override examples = ['<%= config.bin %> notify remove ops'];
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ description: 'Channel name.', required: true }) };

  async run(): Promise<{ name: string; removed: true }> {
    const { args } = await this.parse(NotifyRemove);
    const { kernel } = await this.boot();
    await notifierOf(kernel).remove(args.name);
    if (!this.jsonEnabled()) this.log(`Removed channel ${args.name}.`);
    return { name: args.name, removed: true };
  }
}
