import { OryxCommand } from '../command.ts';
import { table } from '../format.ts';

export default class Agents extends OryxCommand {
  static override summary = 'List the agents in .oryxos/agents.';
  static override examples = ['<%= config.bin %> agents', '<%= config.bin %> agents --json'];
  static override enableJsonFlag = true;

  async run() {
    const { kernel } = await this.boot();
    const agents = (await kernel.agents.list()).map((a) => {
      // The provider and model a run would use, as AgentService resolves them.
      let provider: { name: string; defaultModel?: string } | undefined;
      try { provider = kernel.providerFor(a); } catch { provider = undefined; }
      return {
        name: a.name,
        description: a.description,
        provider: provider?.name,
        model: a.model ?? provider?.defaultModel,
        tools: a.tools,
        skills: a.skills.map((s) => s.name),
        settings: a.settings,
        file: a.file,
      };
    });
    if (!this.jsonEnabled()) {
      if (agents.length === 0) this.log(`No agents in ${kernel.agents.agentsDir}. Run \`oryx init\` to create one.`);
      else this.log(table(agents.map((a) => ({ ...a, tools: a.tools.join(',') })), ['name', 'provider', 'model', 'tools', 'description']));
    }
    return agents;
  }
}
