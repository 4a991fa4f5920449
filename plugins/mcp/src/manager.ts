import { OryxError } from '@oryxos/provider-spec';
import type { AgentDefinition, Tool, ToolResult } from '@oryxos/kernel';
import type { ServerEntry } from './config-file.ts';
import { serverMayMatch } from './names.ts';
import type { McpServerConnection, McpServerStatus, McpToolInfo, ServerDeps } from './server.ts';

/**
 * Every declared MCP server, and the one way the kernel, the CLI and other plugins use them.
 * Provided as the `mcp` service.
 *
 * @example
 * const mcp = kernel.service('mcp');
 * await mcp.connectAll();
 * console.log(mcp.status());
 * const result = await mcp.call('filesystem', 'list_directory', { path: '.' });
 */
export class McpManager {
  private readonly servers = new Map<string, McpServerConnection>();

  /**
   * The manager of these servers. The code that connects them (server.ts; the MCP SDK loads
   * later, at a server's first start) is loaded only when a server is declared: a project that
   * declares none, like the one `oryx init` writes, never compiles it.
   */
  static async create(entries: ServerEntry[], deps: ServerDeps, file?: string): Promise<McpManager> {
    if (!entries.length) return new McpManager([], file);
    const { McpServerConnection } = await import('./server.ts');
    return new McpManager(entries.map((entry) => new McpServerConnection(entry, deps)), file);
  }

  private constructor(servers: McpServerConnection[], readonly file?: string) {
    for (const server of servers) this.servers.set(server.name, server);
  }

  /** Declared server names, in declaration order (file first, then options). */
  get names(): string[] { return [...this.servers.keys()]; }

  /** One server; ORYX_E_MCP_SERVER_UNKNOWN names the known ones. */
  server(name: string): McpServerConnection {
    const server = this.servers.get(name);
    if (server) return server;
    const known = this.names;
    throw new OryxError('ORYX_E_MCP_SERVER_UNKNOWN', `No MCP server named "${name}"`, {
      hint: known.length ? `Declared servers: ${known.join(', ')}.` : 'No servers are declared: add one under servers: in .oryxos/mcp_servers.yaml.',
    });
  }

  /** Health of every server, without connecting anything. */
  status(): McpServerStatus[] {
    return [...this.servers.values()].map((s) => s.status());
  }

  /** Connects one server (if needed) and returns its status; throws why it is unavailable. */
  async connect(name: string, signal?: AbortSignal): Promise<McpServerStatus> {
    const server = this.server(name);
    await server.ready(signal);
    return server.status();
  }

  /** Connects every enabled server in parallel; failures are reported in the statuses, never thrown. */
  async connectAll(signal?: AbortSignal): Promise<McpServerStatus[]> {
    await Promise.allSettled([...this.servers.values()].filter((s) => s.enabled).map((s) => s.ready(signal)));
    return this.status();
  }

  /** The tools a server offers, connecting it first. */
  async tools(name: string, signal?: AbortSignal): Promise<McpToolInfo[]> {
    return this.server(name).listTools(signal);
  }

  /**
   * Calls a tool by the server's name for it (or its `<server>__<tool>` name), directly: no
   * agent, so no `beforeTool`/`afterTool` (agents' calls go through the kernel executor).
   */
  async call(name: string, tool: string, args: Record<string, unknown> = {}, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ToolResult> {
    const server = this.server(name);
    const offered = await server.listTools(options.signal);
    const own = server.resolveTool(tool);
    if (!own) {
      throw new OryxError('ORYX_E_MCP_TOOL_UNKNOWN', `MCP server "${name}" offers no tool "${tool}"`, {
        hint: offered.length ? `Its tools: ${offered.map((t) => t.name).join(', ')}.` : 'It offers no tools (check its tools: allow-list).',
      });
    }
    return server.call(own, args, options);
  }

  /**
   * Kernel tools for an agent. Only servers that the agent's allow-list could match are
   * connected (in parallel, each within its connect timeout); a server that fails is left
   * out, and its status says why.
   */
  async toolsForAgent(agent: AgentDefinition, signal?: AbortSignal): Promise<Tool[]> {
    const wanted = [...this.servers.values()].filter((s) => s.enabled && agent.tools.some((p) => serverMayMatch(p, s.name)));
    const lists = await Promise.all(wanted.map(async (server) => {
      let infos: McpToolInfo[];
      try {
        infos = await server.listTools(signal);
      } catch {
        return []; // the server logged a warning when it failed; its status keeps the reason
      }
      return infos.map((info): Tool => ({
        name: info.exposed,
        description: info.description,
        inputSchema: info.inputSchema,
        source: 'mcp',
        timeoutMs: server.timeoutMs,
        // Checked again per call with the calling agent, so an agent's sandbox: can refuse a server.
        actions: () => [server.action],
        execute: (args, ctx) => server.call(info.name, args, { signal: ctx.signal, timeoutMs: server.timeoutMs, headers: ctx.headers }),
      }));
    }));
    return lists.flat();
  }

  /** Shuts every server down in parallel. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.servers.values()].map((s) => s.close()));
  }

  /** Kills every server process tree synchronously (the `exit` safety net). */
  killSync(): void {
    for (const s of this.servers.values()) s.killSync();
  }
}
