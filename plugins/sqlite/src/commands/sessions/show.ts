import { Args, Flags } from '@oclif/core';
import type { SessionInfo, StoredMessage } from '@oryxos/kernel';
import { OryxCommand } from '@oryxos/kernel/cli';
import { formatSession } from '../../format-session.ts';
import { resolveSession } from '../../resolve-session.ts';

export default class SessionsShow extends OryxCommand {
  static override summary = 'Show a session: its messages, tool calls and tool results.';
  static override examples = [
    '<%= config.bin %> sessions show 3f2a9c1e',
    '<%= config.bin %> sessions show 3f2a9c1e --last 10',
    '<%= config.bin %> sessions show 3f2a9c1e --json',
  ];
  static override enableJsonFlag = true;
  static override args = {
    id: Args.string({ description: 'Session id (or a unique prefix of it).', required: true }),
  };
  static override flags = {
    last: Flags.integer({ char: 'l', summary: 'Only the last N messages.', min: 1 }),
    full: Flags.boolean({ summary: 'Do not cut long messages.', default: false }),
  };

  async run(): Promise<{ session: SessionInfo; messages: StoredMessage[] }> {
    const { args, flags } = await this.parse(SessionsShow);
    const { kernel } = await this.boot();
    const store = kernel.service('sessions');
    const session = await resolveSession(store, args.id);
    const messages = await store.messages(session.id, flags.last ? { limit: flags.last } : {});
    if (!this.jsonEnabled()) this.log(formatSession(session, messages, { full: flags.full }));
    return { session, messages };
  }
}
