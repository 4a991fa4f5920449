import { Flags } from '@oclif/core';
import { OryxCommand } from '@oryxos/command-kit';
import type { MemoryZones } from '@oryxos/contracts';
import { renderZones, scopedStore, sessionFlag, storeFor, targetOf, userFlag } from '../../cli.ts';
import { isOryxError } from '@oryxos/provider-spec';
import { resolveSessionId } from '@oryxos/command-kit';

export default class MemoryShow extends OryxCommand {
  static override readOnly = true;
  static override summary = "Show an agent's long-term memory: the Core and Archive entries of its MEMORY.md.";
  static override description = 'Reads .oryxos/agents/<agent>/MEMORY.md when it exists, else the shared .oryxos/memory/MEMORY.md; '
    + "with --user, that user's memory beside it (users/<user>/MEMORY.md); with --session, the session's memory and checkpoints.";
  static override examples = [
    '<%= config.bin %> memory show -a assistant',
    '<%= config.bin %> memory show --user ana --json',
    '<%= config.bin %> memory show --session 3f2a9c1e-…',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    agent: Flags.string({ char: 'a', summary: 'Agent name (default: defaultAgent from the config, else assistant).' }),
    user: userFlag(),
    session: sessionFlag(),
  };

  async run(): Promise<MemoryZones & { agent: string }> {
    const { flags } = await this.parse(MemoryShow);
    const { kernel, config } = await this.boot();
    const agent = (await kernel.agents.load(flags.agent ?? config.defaultAgent)).name;
    const store = storeFor(kernel);
    // A short id names a stored session; a session already deleted keeps its memory until swept, by its full id.
    const session = flags.session === undefined ? undefined : await resolveSessionId(kernel.service('sessions'), flags.session)
      .then((s) => s.id, (error) => { if (isOryxError(error) && error.code === 'ORYX_E_SESSION_NOT_FOUND') return flags.session; throw error; });
    const target = targetOf({ ...flags, session });
    const zones = await (scopedStore(store, target)?.read(agent, target) ?? store.read(agent));
    if (!this.jsonEnabled()) this.log(renderZones(zones));
    return { agent, ...zones };
  }
}
