import type { ResourceSource } from '@oryxos/contracts';
import { shape as s, validateOptions } from '@oryxos/plugin-kit';
import { mcpServeError } from './errors.ts';

/** How one agent shows up as an MCP tool. */
export interface ExposedAgentOptions {
  /** The tool's name; default `ask_<agent>` (characters other than letters, digits, `_ - .` become `_`). */
  name?: string;
  /** The tool's description; default the agent's own `description:`. */
  description?: string;
}

/** Options of {@link mcpServer}. */
export interface McpServerOptions {
  /** The agents to expose, each as a tool: names, or names with their tool's name and description. */
  agents: string[] | Record<string, ExposedAgentOptions>;
  /** The server's name in the MCP `initialize` answer. Default `oryxos`. */
  serverName?: string;
  /** How long an approval asked through the client's elicitation waits for the person; then the run pauses. Default 300000 (5 min). */
  askTimeoutMs?: number;
  /** How long calls going on may finish when the server stops (the client closed stdin, SIGTERM). Default 10000. */
  graceMs?: number;
  /**
   * Also serve Streamable HTTP in `oryx web`, behind its token, Host and Origin checks: `true`
   * (at `/mcp`) or `{ path, idleMs }` (an MCP session idle that long is closed when another
   * starts; default 1800000, 30 min). Default off.
   */
  http?: boolean | { path?: string; idleMs?: number };
  /**
   * OryxOS tools to expose directly, by name (`['read_file']`). Each call is a run of
   * `toolAgent` that makes only that call: the agent's allow-list, its sandbox, its `approve:`
   * list and the audit apply as to the model's calls. Default none.
   */
  tools?: string[];
  /** The agent whose allow-list, sandbox and approvals the exposed tools run under. Default the first of `agents`. */
  toolAgent?: string;
  /** Skills of the exposed agents to offer as MCP prompts, by name. Default none. */
  prompts?: string[];
  /**
   * Read-only resources: `'sessions'` (the exposed agents' sessions, `oryx://sessions/{id}`),
   * `'memory'` (their long-term memory, `oryx://memory/{agent}`, from the `memory` service), and
   * any {@link ResourceSource} a plugin builds. Default none.
   */
  resources?: ('sessions' | 'memory' | ResourceSource)[];
}

/** One exposed agent, resolved. */
export interface ExposedAgent { agent: string; tool: string; description?: string }

export interface ResolvedMcpServerOptions {
  agents: ExposedAgent[];
  serverName: string;
  askTimeoutMs: number;
  graceMs: number;
  /** Where `oryx web` serves MCP; undefined: not over HTTP. */
  httpPath?: string;
  /** How long an HTTP MCP session may sit idle before a new one closes it. */
  httpIdleMs: number;
  /** OryxOS tools exposed directly, and the agent they run under. */
  tools: string[];
  toolAgent: string;
  prompts: string[];
  sessions: boolean;
  memory: boolean;
  sources: ResourceSource[];
}

const agentShape = s.object({ name: s.string({ min: 1 }).optional(), description: s.string({ min: 1 }).optional() });

export const optionsShape = s.object({
  agents: s.union(s.array(s.string({ min: 1 })), s.record(agentShape)),
  serverName: s.string({ min: 1 }).optional(),
  askTimeoutMs: s.integer({ min: 1000 }).optional(),
  graceMs: s.integer({ min: 0 }).optional(),
  http: s.union(s.boolean(), s.object({ path: s.string({ pattern: /^\/[A-Za-z0-9/_.-]*$/ }).optional(), idleMs: s.integer({ min: 1000 }).optional() })).optional(),
  tools: s.array(s.string({ min: 1 })).optional(),
  toolAgent: s.string({ min: 1 }).optional(),
  prompts: s.array(s.string({ min: 1 })).optional(),
  resources: s.array(s.union(
    s.literal('sessions', 'memory'),
    s.custom('a ResourceSource ({ name, list(), read(uri) })', (v) => typeof v === 'object' && v !== null
      && typeof (v as ResourceSource).name === 'string' && typeof (v as ResourceSource).list === 'function' && typeof (v as ResourceSource).read === 'function'),
  )).optional(),
});

/** What MCP allows in a tool name (the spec's guidance: 1–128 of these). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * Validates the factory's options at once; the error names the field.
 *
 * @example
 * resolveOptions({ agents: ['assistant'] }).agents // [{ agent: 'assistant', tool: 'ask_assistant' }]
 */
export function resolveOptions(raw: unknown): ResolvedMcpServerOptions {
  const o = validateOptions(optionsShape, raw, {
    plugin: 'mcpServer', code: 'ORYX_E_MCPSERVE_OPTIONS', example: "mcpServer({ agents: ['assistant'] })",
  }) as McpServerOptions;
  const entries: [string, ExposedAgentOptions][] = Array.isArray(o.agents) ? o.agents.map((a) => [a, {}]) : Object.entries(o.agents);
  if (entries.length === 0) throw mcpServeError('ORYX_E_MCPSERVE_NO_AGENTS', 'mcpServer(): agents lists no agent, so the server would have no tool');
  const agents: ExposedAgent[] = [];
  const seen = new Map<string, string>();
  for (const [agent, opts] of entries) {
    const tool = opts.name ?? `ask_${agent.replace(/[^A-Za-z0-9_.-]/g, '_')}`.slice(0, 128);
    if (!TOOL_NAME.test(tool)) {
      throw mcpServeError('ORYX_E_MCPSERVE_TOOL_NAME', `mcpServer(): agents.${agent}.name "${tool}" is not a valid MCP tool name (1 to 128 of A-Z a-z 0-9 _ - .)`);
    }
    const other = seen.get(tool);
    if (other !== undefined) {
      throw mcpServeError('ORYX_E_MCPSERVE_TOOL_NAME', `mcpServer(): agents ${other === agent ? `"${agent}" is listed twice` : `"${other}" and "${agent}" would both be the tool "${tool}"`}`);
    }
    seen.set(tool, agent);
    agents.push({ agent, tool, ...(opts.description ? { description: opts.description } : {}) });
  }
  for (const tool of o.tools ?? []) {
    if (!TOOL_NAME.test(tool)) throw mcpServeError('ORYX_E_MCPSERVE_TOOL_NAME', `mcpServer(): tools lists "${tool}", which is not a valid MCP tool name (1 to 128 of A-Z a-z 0-9 _ - .)`);
    const other = seen.get(tool);
    if (other !== undefined) throw mcpServeError('ORYX_E_MCPSERVE_TOOL_NAME', `mcpServer(): tools lists "${tool}"${other === '' ? ' twice' : `, which is already the tool of agent "${other}"`}`);
    seen.set(tool, '');
  }
  const toolAgent = o.toolAgent ?? agents[0]!.agent;
  if (!agents.some((a) => a.agent === toolAgent)) {
    throw mcpServeError('ORYX_E_MCPSERVE_OPTIONS', `mcpServer(): toolAgent "${toolAgent}" is not one of agents (${agents.map((a) => a.agent).join(', ')})`);
  }
  const prompts = o.prompts ?? [];
  const twice = prompts.find((p, i) => prompts.indexOf(p) !== i);
  if (twice) throw mcpServeError('ORYX_E_MCPSERVE_OPTIONS', `mcpServer(): prompts lists "${twice}" twice`);
  const resources = o.resources ?? [];
  const httpPath = o.http === true ? '/mcp' : typeof o.http === 'object' ? o.http.path ?? '/mcp' : undefined;
  return { agents, serverName: o.serverName ?? 'oryxos', askTimeoutMs: o.askTimeoutMs ?? 300_000, graceMs: o.graceMs ?? 10_000,
    ...(httpPath ? { httpPath } : {}), httpIdleMs: (typeof o.http === 'object' ? o.http.idleMs : undefined) ?? 1_800_000,
    tools: o.tools ?? [], toolAgent, prompts,
    sessions: resources.includes('sessions'), memory: resources.includes('memory'),
    sources: resources.filter((r): r is ResourceSource => typeof r === 'object'),
  };
}
