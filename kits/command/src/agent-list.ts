import path from 'node:path';
import { errorMessage, isOryxError } from '@oryxos/provider-spec';
import type { AgentSettings, PluginContext } from '@oryxos/kernel';

/** One agent as `oryx agents --json` and `GET /api/agents` list it; a broken AGENT.md has `error` instead of its fields. */
export interface AgentJson {
  name: string;
  description: string;
  /** The provider and model a run would use, as AgentService resolves them. */
  provider?: string;
  model?: string;
  tools: string[];
  skills: string[];
  /** Sub-agents it may call (`agents:`), each as the tool `agent__<name>`. */
  agents: string[];
  settings?: AgentSettings;
  file: string;
  error?: { code: string; message: string };
}

/**
 * Every agent folder, each loaded on its own: one broken AGENT.md is listed with its error and
 * never hides the others.
 *
 * @example
 * const agents = await listAgents(kernel); const broken = agents.filter((a) => a.error);
 */
export async function listAgents(kernel: Pick<PluginContext, 'agents' | 'providerFor'>): Promise<AgentJson[]> {
  const loader = kernel.agents;
  return Promise.all((await loader.names()).map(async (name): Promise<AgentJson> => {
    const file = path.join(loader.agentsDir, name, 'AGENT.md');
    try {
      const a = await loader.load(name);
      let provider: { name: string; defaultModel?: string } | undefined;
      try { provider = kernel.providerFor(a); } catch { provider = undefined; }
      return {
        name: a.name, description: a.description,
        ...(provider ? { provider: provider.name } : {}),
        ...(a.model ?? provider?.defaultModel ? { model: a.model ?? provider?.defaultModel } : {}),
        tools: a.tools, skills: a.skills.map((s) => s.name), agents: Array.isArray(a.extra.agents) ? a.extra.agents.filter((n): n is string => typeof n === 'string') : [], settings: a.settings, file: a.file,
      };
    } catch (error) {
      return { name, description: '', tools: [], skills: [], agents: [], file, error: { code: isOryxError(error) ? error.code : 'ORYX_E_AGENT_INVALID', message: errorMessage(error) } };
    }
  }));
}
