import { OryxCommand } from '@oryxos/command-kit';
import { table } from '@oryxos/command-kit';

import { listAgents, type AgentJson } from '@oryxos/command-kit';
import { listJson, type ListJson } from '@oryxos/command-kit';

export default class Agents extends OryxCommand {
  static override readOnly = true;
  static override summary = 'List the agents in .oryxos/agents.';
  static override description = 'An agent whose AGENT.md cannot be loaded is listed with its error (the others still are), '
    + 'and the command then exits with status 1.';
  static override examples = ['<%= config.bin %> agents', '<%= config.bin %> agents --json'];
  static override enableJsonFlag = true;

  async run(): Promise<ListJson<AgentJson>> {
    const { kernel } = await this.boot();
    const agents = await listAgents(kernel);
    const broken = agents.filter((a) => a.error);
    if (broken.length) process.exitCode = 1;
    if (!this.jsonEnabled()) {
      if (agents.length === 0) this.log(`No agents in ${kernel.agents.agentsDir}. Run \`oryx init\` to create one.`);
      else {
        this.log(table(agents.map((a) => ({
          ...a, tools: [...a.tools, ...a.agents.map((name) => `agent__${name.replaceAll('.', '_')}`)].join(','), description: a.error ? `BROKEN (${a.error.code})` : a.description,
        })), ['name', 'provider', 'model', 'tools', 'description']));
      }
      for (const a of broken) this.logToStderr(`error ${a.error!.code}: ${a.error!.message}`);
      if (broken.length) {
        this.logToStderr(`  hint: ${broken.length} of ${agents.length} agent(s) cannot be loaded; fix ${broken.length === 1 ? 'its' : 'their'} AGENT.md (the others work meanwhile).`);
      }
    }
    return listJson(agents);
  }
}
