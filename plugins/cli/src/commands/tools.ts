import { Flags } from '@oclif/core';
import { OryxCommand } from '@oryxos/command-kit';
import { table } from '@oryxos/command-kit';

import { listJson } from '@oryxos/command-kit';

export default class Tools extends OryxCommand {
  static override readOnly = true;
  static override summary = 'List tools: all registered ones, or those an agent may use.';
  static override examples = ['<%= config.bin %> tools', '<%= config.bin %> tools -a assistant --json'];
  static override enableJsonFlag = true;
  static override flags = {
    agent: Flags.string({ char: 'a', summary: 'Only the tools this agent\'s allow-list lets it use.' }),
  };

  async run() {
    const { flags } = await this.parse(Tools);
    const { kernel, config } = await this.boot();
    const agent = await kernel.agents.load(flags.agent ?? config.defaultAgent).catch((e) => { if (flags.agent) throw e; return undefined; });
    const list = agent && flags.agent ? await kernel.toolsFor(agent) : agent ? await kernel.allTools(agent) : [];
    const tools = list.map((t) => ({ name: t.name, source: t.source, plugin: t.plugin, description: t.description, inputSchema: t.inputSchema }));
    const sources = await kernel.toolSourceStatus();
    if (!this.jsonEnabled()) {
      this.log(tools.length ? table(tools, ['name', 'source', 'plugin', 'description']) : 'No tools.');
      for (const s of sources.filter((x) => !x.ok)) this.log(`unavailable: ${s.provider}/${s.name}: ${s.reason ?? 'unknown reason'}`);
    }
    // The same shape as GET /api/tools: the tools, and the health of every tool source (MCP server).
    return listJson(tools, undefined, { ...(flags.agent ? { agent: flags.agent } : {}), sources });
  }
}
