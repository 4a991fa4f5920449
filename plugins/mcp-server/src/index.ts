/**
 * @oryxos/plugin-mcp-server: OryxOS as an MCP server. `oryx mcp serve` speaks MCP on stdio (what
 * Claude Desktop, Claude Code, VS Code and Cursor launch); each exposed agent is a tool
 * (`ask_<agent>`, input `{message, session?}`) whose call is a run through the `mcp` door:
 * progress notifications while it works, cancellation aborting it, approvals through the
 * client's elicitation (or a paused run and how to approve it), the client's name as the run's user.
 *
 * @example
 * // oryx.config.ts
 * import mcpServer from '@oryxos/plugin-mcp-server';
 * export default defineConfig({ plugins: [sqlite(), audit(), approvals(), mcpServer({ agents: ['assistant'] })] });
 */
import { pluginPackage, type Plugin } from '@oryxos/kernel';
import { resolveOptions, type McpServerOptions, type ResolvedMcpServerOptions } from './options.ts';
import type { McpDoor } from './door.ts';

export { ERROR_CODES, type McpServeErrorCode } from './errors.ts';
export { resolveOptions, type McpServerOptions, type ResolvedMcpServerOptions, type ExposedAgent, type ExposedAgentOptions } from './options.ts';
export type { McpDoor, Connection } from './door.ts';

declare module '@oryxos/contracts' {
  interface Services {
    /** The MCP server door of @oryxos/plugin-mcp-server: `serveStdio()` for `oryx mcp serve`. */
    mcpServer: McpDoor;
  }
}

/**
 * The MCP server plugin: registers the door `mcp` and the `mcpServer` service that
 * `oryx mcp serve` attaches stdio to. Throws ORYX_E_MCPSERVE_* for bad options.
 */
export default function mcpServer(options: McpServerOptions): Plugin<ResolvedMcpServerOptions> {
  const o = resolveOptions(options);
  const pkg = pluginPackage(import.meta.url);
  return {
    ...pkg,
    name: 'mcp-server',
    provides: o.httpPath ? ['mcpServer', 'mcpHttp'] : ['mcpServer'],
    options: o,
    async setup(ctx) {
      const { McpDoor } = await import('./door.ts');
      const door = new McpDoor(ctx, o, pkg.version);
      ctx.registerDoor(door.door());
      ctx.provide('mcpServer', door);
      if (o.httpPath) {
        const { httpEndpoint } = await import('./http.ts');
        ctx.provide('mcpHttp', httpEndpoint(door, ctx, o.httpPath, o.httpIdleMs));
      }
    },
  };
}
