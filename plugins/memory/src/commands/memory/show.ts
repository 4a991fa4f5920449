import { Flags } from '@oclif/core';
import { OryxCommand } from '@oryxos/kernel/cli';
import type { MemoryZones } from '@oryxos/kernel';
import { renderZones, storeFor } from '../../cli.ts';

export default class MemoryShow extends OryxCommand {
  static override summary = "Show an agent's long-term memory: the Core and Archive entries of its MEMORY.md.";
  static override description = 'Reads .oryxos/agents/<agent>/MEMORY.md when it exists, else the shared .oryxos/memory/MEMORY.md.';
  static override examples = ['<%= config.bin %> memory show -a assistant', '<%= config.bin %> memory show -a assistant --json'];
  static override enableJsonFlag = true;
  static override flags = {
    agent: Flags.string({ char: 'a', summary: 'Agent name (default: defaultAgent from the config, else assistant).' }),
  };

  async run(): Promise<MemoryZones & { agent: string }> {
    const { flags } = await this.parse(MemoryShow);
    const { kernel, config } = await this.boot();
    const agent = (await kernel.agents.load(flags.agent ?? config.defaultAgent)).name;
    const zones = await storeFor(kernel).read(agent);
    if (!this.jsonEnabled()) this.log(renderZones(zones));
    return { agent, ...zones };
  }
}
