/**
 * @oryxos/plugin-subagents: an agent hands work to others. `agents: [researcher, writer]` in
 * its AGENT.md offers it the tools `agent__researcher` and `agent__writer`; each call runs that
 * agent on the task in a child session of the caller's, on what is left of the caller's budget,
 * narrowed by every caller's sandbox, at most `max_agent_depth` levels deep.
 */
import { definePlugin, pluginPackage, type AgentDefinition, type Plugin, type PluginContext, type RunContext, type RunResult, type Tool, type ToolResult } from '@oryxos/kernel';
import { OryxError } from '@oryxos/provider-spec';
import { didYouMean } from '@oryxos/schema-kit';

export { ERROR_CODES } from './errors.ts';

/**
 * The tool that runs a sub-agent: `agent__researcher`. Tool names are `[a-zA-Z0-9_-]` for most
 * providers, so a `.` of an agent's folder name becomes `_`.
 *
 * @example
 * agentToolName('web.search') // 'agent__web_search'
 */
export function agentToolName(agent: string): string {
  return `agent__${agent.replaceAll('.', '_')}`;
}

/** The `agents:` of an agent, checked: a list of names. */
function listed(agent: AgentDefinition): string[] {
  const value = agent.extra.agents;
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new OryxError('ORYX_E_AGENT_INVALID', `${agent.file}: field "agents" must be a list of agent names`, { hint: 'Write agents: [researcher, writer].', data: { file: agent.file, field: 'agents' } });
  }
  return value;
}

/**
 * Sub-agent levels left below a run: each agent of the chain (its callers, then itself) allows
 * `max_agent_depth` levels below it, so the least of what each still allows.
 */
function depthLeft(agent: AgentDefinition, run?: RunContext): number {
  const chain = [...(run?.callers ?? []), agent];
  return Math.min(...chain.map((a, i) => (a.settings.max_agent_depth as number) - (chain.length - 1 - i)));
}

/**
 * Every name in `agents:` is an agent (ORYX_E_AGENT_INVALID with the closest name) and no agent
 * reaches itself again (ORYX_E_AGENT_CYCLE naming the path and the file).
 */
async function checkAgents(ctx: PluginContext, root: AgentDefinition): Promise<Map<string, AgentDefinition>> {
  const known = await ctx.agents.names();
  const loaded = new Map([[root.name, root]]);
  const walk = async (agent: AgentDefinition, trail: string[]): Promise<void> => {
    for (const name of listed(agent)) {
      if (!known.includes(name)) {
        throw new OryxError('ORYX_E_AGENT_INVALID', `${agent.file}: agents: no agent "${name}"${didYouMean(name, known)}`, {
          hint: `Fix the name in agents: (${known.length ? `known agents: ${known.join(', ')}` : 'there are no agents yet'}), or create .oryxos/agents/${name}/AGENT.md.`,
          data: { file: agent.file, field: 'agents', agent: name },
        });
      }
      if (trail.includes(name)) {
        const cycle = [...trail.slice(trail.indexOf(name)), name];
        throw new OryxError('ORYX_E_AGENT_CYCLE', `${agent.file}: agents: ${cycle.join(' → ')} is a cycle`, {
          hint: `Remove "${name}" from agents: in ${agent.file}: an agent cannot call itself, directly or through its sub-agents.`,
          data: { file: agent.file, field: 'agents', cycle },
        });
      }
      let sub = loaded.get(name);
      if (!sub) loaded.set(name, sub = await ctx.agents.load(name));
      await walk(sub, [...trail, name]);
    }
  };
  await walk(root, [root.name]);
  return loaded;
}

/** A sub-agent's run as its caller's tool result. */
function asResult(name: string, r: RunResult): ToolResult {
  if (r.stopReason === 'final') return { content: r.answer, isError: false };
  const why = r.error ? `failed (${r.error.code}: ${r.error.message})` : `stopped (${r.stopReason}: ${r.notice ?? r.stopReason})`;
  const answer = r.answer ? `\nIts answer so far:\n${r.answer}` : '';
  return { content: `Sub-agent "${name}" ${why}; its session is ${r.sessionId}.${answer}`, isError: true };
}

/** Node's timers cap at 2^31-1 ms; a sub-agent call is bounded by the run's deadline anyway. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The sub-agents plugin.
 *
 * @example
 * plugins: [openai(), sqlite(), tools(), subagents()]
 */
export default function subagents(): Plugin {
  return definePlugin({
    ...pluginPackage(import.meta.url), name: 'subagents', agentKeys: ['agents'],
    settings: {
      max_agent_depth: { default: 2, check: (v) => (Number.isInteger(v) && (v as number) >= 0 ? undefined : 'must be an integer of at least 0') },
    },
    setup(ctx) {
      ctx.registerToolProvider({
        name: 'subagents',
        ownList: true,
        async list({ agent, run }): Promise<Tool[]> {
          if (!listed(agent).length) return [];
          const agents = await checkAgents(ctx, agent);
          if (depthLeft(agent, run) <= 0) return [];
          return listed(agent).map((name): Tool => ({
            name: agentToolName(name),
            description: agents.get(name)!.description || `Hands a task to the agent "${name}", which answers with text.`,
            inputSchema: {
              type: 'object',
              properties: { task: { type: 'string', description: `Everything "${name}" needs to know: it sees only this message, not this conversation.` } },
              required: ['task'],
              additionalProperties: false,
            },
            source: 'plugin',
            timeoutMs: Math.min(agent.settings.max_duration_ms, MAX_TIMER_MS),
            async execute(args, tool) {
              // The call's trace context (a tracer's traceparent) makes the sub-agent's run a child of this call.
              const origin = Object.keys(tool.headers).length ? { origin: { carrier: { ...tool.headers } } } : {};
              return asResult(name, await ctx.runs.process({ agent: name, message: String(args.task), parent: tool.run, signal: tool.signal, ...origin }));
            },
          }));
        },
      });
    },
  });
}

