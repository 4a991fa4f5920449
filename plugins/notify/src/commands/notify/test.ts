import { Args } from '@oclif/core';
import { OryxError } from '@oryxos/provider-spec';
import { OryxCommand } from '@oryxos/command-kit';
import { notifierOf } from '../../cli.ts';
import type { SendResult } from '@oryxos/contracts';

export default class NotifyTest extends OryxCommand {
  static override summary = 'Send a test mail on a channel and say exactly what failed: sandbox, DNS, connect, TLS, auth or a refused recipient.';
  static override examples = ['<%= config.bin %> notify test ops', '<%= config.bin %> notify test ops --json'];
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ description: 'Channel name.', required: true }) };

  async run(): Promise<SendResult> {
    const { args } = await this.parse(NotifyTest);
    const { kernel } = await this.boot();
    const result = await notifierOf(kernel).test(args.name);
    if (result.status !== 'sent') {
      const e = result.error!;
      throw new OryxError(e.code, e.message, { hint: e.hint, data: { notification: result.id, attempts: result.attempts } });
    }
    if (!this.jsonEnabled()) {
      this.log(`Sent a test mail on channel ${result.channel} to ${result.to.join(', ')} (message id ${result.messageId ?? 'none'}).`);
      if (result.rejected) this.logToStderr(`warning: the server refused ${result.rejected.join(', ')}`);
    }
    return result;
  }
}
