import { Args, Flags } from '@oclif/core';
import { OryxCommand } from '@oryxos/command-kit';
import { resolveSessionId } from '@oryxos/command-kit';

export default class SessionsDelete extends OryxCommand {
  static override summary = 'Delete a session with its messages, run records and sub-agents\' sessions (audit rows are kept).';
  static override description = 'While another process runs the session (it holds the session\'s lease) the delete is refused, '
    + 'naming that process. --force asks it to abort its run (it notices within a third of leaseMs, 10 s by default), '
    + 'waits for the run to end, then deletes.';
  static override examples = [
    '<%= config.bin %> sessions delete 3f2a9c1e',
    '<%= config.bin %> sessions delete 3f2a9c1e --force',
    '<%= config.bin %> sessions delete 3f2a9c1e --json',
  ];
  static override enableJsonFlag = true;
  static override args = {
    id: Args.string({ description: 'Session id (or a unique prefix of it).', required: true }),
  };
  static override flags = {
    force: Flags.boolean({ char: 'f', summary: 'Stop a run of the session in another process first, then delete.', default: false }),
  };

  async run(): Promise<{ id: string; deleted: boolean; messages: number }> {
    const { args, flags } = await this.parse(SessionsDelete);
    const { kernel } = await this.boot();
    const store = kernel.service('sessions');
    const session = await resolveSessionId(store, args.id);
    if (flags.force && !this.jsonEnabled()) this.logToStderr(`Stopping any run of session ${session.id} before deleting it…`);
    const deleted = await store.delete(session.id, { force: flags.force });
    if (!this.jsonEnabled()) this.log(`Deleted session ${session.id} (${session.messageCount} message(s)).`);
    return { id: session.id, deleted, messages: session.messageCount };
  }
}
