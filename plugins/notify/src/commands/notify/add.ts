import { Args, Flags } from '@oclif/core';
import { OryxCommand } from '@oryxos/command-kit';
import type { ChannelInfo } from '../../channel.ts';
import { notifierOf } from '../../cli.ts';

export default class NotifyAdd extends OryxCommand {
  static override summary = 'Add an SMTP channel; its password stays in an environment variable (--pass-env), never in the database.';
  static override description = 'The sandbox must allow the server too: sandbox({ smtp: { allow: ["host:port"] } }) in oryx.config.ts. '
    + 'Check the channel with `oryx notify test NAME`.';
  static override examples = [
    '<%= config.bin %> notify add ops --host smtp.example.com --port 587 --user bot@example.com --pass-env SMTP_PASS --from bot@example.com --to me@example.com',
    '<%= config.bin %> notify add alerts --host smtp.example.com --port 465 --secure --from bot@example.com --to a@example.com --to b@example.com',
  ];
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ description: 'Channel name: letters, digits, ".", "_" or "-".', required: true }) };
  static override flags = {
    host: Flags.string({ summary: 'SMTP server host name or IP address.', required: true }),
    port: Flags.integer({ summary: 'SMTP port: 587 (STARTTLS), 465 (--secure) or 25.', required: true }),
    secure: Flags.boolean({ summary: 'Implicit TLS from the first byte (port 465).', default: false }),
    'require-tls': Flags.boolean({ summary: 'Refuse to send unless the server upgrades to TLS (STARTTLS).', default: false }),
    user: Flags.string({ summary: 'SMTP user name.' }),
    'pass-env': Flags.string({ summary: 'Name of the environment variable holding the password (read at every send).' }),
    from: Flags.string({ summary: 'Sender address.', required: true }),
    to: Flags.string({ summary: 'Recipient address (repeat the flag for several).', required: true, multiple: true }),
  };

  async run(): Promise<ChannelInfo> {
    const { args, flags } = await this.parse(NotifyAdd);
    const { kernel } = await this.boot();
    const channel = await notifierOf(kernel).add({
      name: args.name, host: flags.host, port: flags.port, secure: flags.secure, requireTLS: flags['require-tls'],
      user: flags.user, passEnv: flags['pass-env'], from: flags.from, to: flags.to,
    });
    if (!this.jsonEnabled()) this.log(`Added channel ${channel.name}: ${channel.host}:${channel.port}, to ${channel.to.join(', ')}. Try it with \`${this.config.bin} notify test ${channel.name}\`.`);
    return channel;
  }
}
