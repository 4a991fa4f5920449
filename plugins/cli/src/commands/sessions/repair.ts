import { Args } from '@oclif/core';
import { OryxError } from '@oryxos/provider-spec';
import { OryxCommand } from '@oryxos/command-kit';
import { resolveSessionId } from '@oryxos/command-kit';

export default class SessionsRepair extends OryxCommand {
  static override summary = 'Move the messages of a session that cannot be read to the messages_quarantine table.';
  static override description = 'A damaged message row (bad JSON, a wrong type) stops `oryx run -s ID` with ORYX_E_SQLITE_CORRUPT_ROW. '
    + 'This moves every such row of the session, byte for byte and with the reason, to messages_quarantine (nothing is deleted); '
    + 'the other messages stay and the session works again. It waits for a run of the session in another process to finish. '
    + 'A damaged file (a table or index SQLite cannot read, `oryx doctor` says which) is `oryx db repair`\'s.';
  static override examples = ['<%= config.bin %> sessions repair 3f2a9c1e', '<%= config.bin %> sessions repair 3f2a9c1e --json'];
  static override enableJsonFlag = true;
  static override args = {
    id: Args.string({ description: 'Session id (or a unique prefix of it).', required: true }),
  };

  async run(): Promise<{ id: string; quarantined: { seq: number; reason: string }[]; kept: number }> {
    const { args } = await this.parse(SessionsRepair);
    const { kernel } = await this.boot();
    const store = kernel.service('sessions');
    if (!store.repair) {
      throw new OryxError('ORYX_E_CLI_USAGE', 'The sessions store of this config cannot repair sessions', {
        hint: 'Enable a store plugin (sqlite() or postgres()) in oryx.config.ts; repair works on its database.',
      });
    }
    const session = await resolveSessionId(store, args.id);
    const { quarantined, kept } = await store.repair(session.id);
    if (!this.jsonEnabled()) {
      if (quarantined.length === 0) this.log(`Session ${session.id}: all ${kept} message(s) can be read; nothing to repair.`);
      else {
        for (const q of quarantined) this.log(`#${q.seq} moved to messages_quarantine: ${q.reason}`);
        this.log(`Session ${session.id}: ${quarantined.length} message(s) quarantined, ${kept} kept. The session works again.`);
      }
    }
    return { id: session.id, quarantined, kept };
  }
}
