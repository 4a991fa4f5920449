import type { AgentDefinition, RunResult, Tool, ToolResult } from './types.ts';

/**
 * The tool that runs a sub-agent: `agent__researcher`. Tool names are `[a-zA-Z0-9_-]` for most
 * providers, so a `.` of an agent's folder name becomes `_`.
 */
export function agentToolName(agent: string): string {
  return `agent__${agent.replaceAll('.', '_')}`;
}

/** Runs one sub-agent on a task in a fresh child session; what an `agent__<name>` tool calls. */
export type Delegate = (agent: string, task: string, signal: AbortSignal) => Promise<RunResult>;

/** Node's timers cap at 2^31-1 ms; a sub-agent call is bounded by the run's deadline anyway. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The `agent__<name>` tools of one run: one per sub-agent in the agent's `agents:`, none when
 * no depth is left (`max_agent_depth`). A call runs the sub-agent in a child session of this
 * run's session, on this run's budget; its final answer is the result. A sub-agent that stops
 * short or fails gives an error result saying why and naming its session.
 */
export function subAgentTools(agent: AgentDefinition, depthLeft: number, delegate: Delegate): Tool[] {
  if (depthLeft <= 0) return [];
  return agent.agents.map((ref): Tool => ({
    name: agentToolName(ref.name),
    description: ref.description || `Hands a task to the agent "${ref.name}", which answers with text.`,
    inputSchema: {
      type: 'object',
      properties: { task: { type: 'string', description: `Everything "${ref.name}" needs to know: it sees only this message, not this conversation.` } },
      required: ['task'],
      additionalProperties: false,
    },
    source: 'builtin',
    plugin: 'kernel',
    timeoutMs: Math.min(agent.settings.max_duration_ms, MAX_TIMER_MS),
    async execute(args, ctx) {
      return asResult(ref.name, await delegate(ref.name, String(args.task), ctx.signal));
    },
  }));
}

/** A sub-agent's run as its caller's tool result. */
function asResult(name: string, r: RunResult): ToolResult {
  if (r.stopReason === 'final') return { content: r.answer, isError: false };
  const why = r.error ? `failed (${r.error.code}: ${r.error.message})` : `stopped (${r.stopReason}: ${r.notice ?? r.stopReason})`;
  const answer = r.answer ? `\nIts answer so far:\n${r.answer}` : '';
  return { content: `Sub-agent "${name}" ${why}; its session is ${r.sessionId}.${answer}`, isError: true };
}

/**
 * The `agent__<name>` tools a top-level run of this agent is offered, for listings
 * (`oryx tools -a`, `GET /api/tools?agent=`); they are not meant to run from there.
 */
export function listedSubAgentTools(agent: AgentDefinition): Tool[] {
  return subAgentTools(agent, agent.settings.max_agent_depth, () => Promise.reject(new Error('a listed sub-agent tool does not run; a run offers its own')));
}
