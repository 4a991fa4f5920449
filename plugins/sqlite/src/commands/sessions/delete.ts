import { Args } from '@oclif/core';
import { OryxCommand } from '@oryxos/kernel/cli';
import { resolveSession } from '../../resolve-session.ts';

export default class SessionsDelete extends OryxCommand {
  static override summary = 'Delete a session and its messages (audit rows are kept).';
  static override examples = ['<%= config.bin %> sessions delete 3f2a9c1e', '<%= config.bin %> sessions delete 3f2a9c1e --json'];
  static override enableJsonFlag = true;
  static override args = {
    id: Args.string({ description: 'Session id (or a unique prefix of it).', required: true }),
  };

  async run(): Promise<{ id: string; deleted: boolean; messages: number }> {
    const { args } = await this.parse(SessionsDelete);
    const { kernel } = await this.boot();
    const store = kernel.service('sessions');
    const session = await resolveSession(store, args.id);
    const deleted = await store.delete(session.id);
    if (!this.jsonEnabled()) this.log(`Deleted session ${session.id} (${session.messageCount} message(s)).`);
    return { id: session.id, deleted, messages: session.messageCount };
  }
}
