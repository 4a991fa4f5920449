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
}

const agentShape = s.object({ name: s.string({ min: 1 }).optional(), description: s.string({ min: 1 }).optional() });

export const optionsShape = s.object({
  agents: s.union(s.array(s.string({ min: 1 })), s.record(agentShape)),
  serverName: s.string({ min: 1 }).optional(),
  askTimeoutMs: s.integer({ min: 1000 }).optional(),
  graceMs: s.integer({ min: 0 }).optional(),
  http: s.union(s.boolean(), s.object({ path: s.string({ pattern: /^\/[A-Za-z0-9/_.-]*$/ }).optional(), idleMs: s.integer({ min: 1000 }).optional() })).optional(),
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
  const httpPath = o.http === true ? '/mcp' : typeof o.http === 'object' ? o.http.path ?? '/mcp' : undefined;
  return { agents, serverName: o.serverName ?? 'oryxos', askTimeoutMs: o.askTimeoutMs ?? 300_000, graceMs: o.graceMs ?? 10_000,
    ...(httpPath ? { httpPath } : {}), httpIdleMs: (typeof o.http === 'object' ? o.http.idleMs : undefined) ?? 1_800_000,
  };
}
