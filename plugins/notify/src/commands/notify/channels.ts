import { OryxCommand, table, listJson, type ListJson } from '@oryxos/command-kit';
import type { ChannelInfo } from '../../channel.ts';
import { notifierOf } from '../../cli.ts';

export default class NotifyChannels extends OryxCommand {
  static override readOnly = true;
  static override summary = 'List notify channels: server, sender, recipients and where the password comes from (never the password).';
  static override examples = ['<%= config.bin %> notify channels', '<%= config.bin %> notify channels --json'];
  static override enableJsonFlag = true;

  async run(): Promise<ListJson<ChannelInfo>> {
    const { kernel } = await this.boot();
    const channels = await notifierOf(kernel).channels();
    if (!this.jsonEnabled()) {
      if (channels.length === 0) this.log('No notify channels. Add one in notify({ channels }) or with `oryx notify add`.');
      else {
        this.log(table(channels.map((c) => ({
          name: c.name, server: `${c.host}:${c.port}${c.secure ? ' (TLS)' : c.requireTLS ? ' (STARTTLS)' : ''}`, user: c.user ?? '', password: c.password,
          from: c.from, to: c.to.join(', '), source: c.source,
        }))));
      }
    }
    return listJson(channels);
  }
}
