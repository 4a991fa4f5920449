import path from 'node:path';
import { STAGE, pluginPackage, type Plugin } from '@oryxos/kernel';
import { loadServers } from './config-file.ts';
import { McpManager } from './manager.ts';
import { DEFAULTS, validateOptions, type McpOptions } from './options.ts';

export { ERROR_CODES, type McpErrorCode } from './errors.ts';
export { McpManager } from './manager.ts';
export type { McpServerStatus, McpToolInfo, ServerState } from './server.ts';
export type { McpOptions, McpServerConfig } from './options.ts';
export { toToolResult, type McpCallResult } from './content.ts';
export { exposedName, serverMayMatch } from './names.ts';
export { expandString } from './env.ts';
export { loadServers, type ServerEntry, type LoadedServers } from './config-file.ts';

declare module '@oryxos/contracts' {
  interface Services {
    /** The MCP servers: status, tools, direct calls (provided by @oryxos/plugin-mcp). */
    mcp: McpManager;
  }
}

/**
 * The MCP client plugin: tools from MCP servers (stdio and Streamable HTTP) declared in
 * `.oryxos/mcp_servers.yaml` and/or in `servers`, offered to agents as `<server>__<tool>`.
 * Servers start on first use, behind the sandbox (`exec` for a command, `http` for a URL).
 *
 * @example
 * import { defineConfig } from '@oryxos/kernel';
 * import mcp from '@oryxos/plugin-mcp';
 * export default defineConfig({
 *   plugins: [mcp({ servers: { everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] } } })],
 * });
 */
export default function mcp(options: McpOptions = {}): Plugin {
  const opts = validateOptions(options);
  const pkg = pluginPackage(import.meta.url);
  return {
    ...pkg,
    name: 'mcp',
    provides: ['mcp'],
    options: opts,
    async setup(ctx) {
      const loaded = await loadServers({ options: opts, root: ctx.config.root, workspaceDir: ctx.config.workspaceDir });
      for (const secret of loaded.secrets) ctx.secrets.add(secret);
      for (const name of loaded.overridden) {
        ctx.log.info(`server "${name}" is declared in both ${loaded.file} and the mcp() options; the options entry is used`);
      }
      const manager = await McpManager.create(loaded.servers, {
        ctx,
        timeoutMs: opts.timeoutMs ?? DEFAULTS.timeoutMs,
        connectTimeoutMs: opts.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
        baseDelayMs: opts.reconnect?.baseDelayMs ?? DEFAULTS.baseDelayMs,
        maxDelayMs: opts.reconnect?.maxDelayMs ?? DEFAULTS.maxDelayMs,
        maxTools: opts.limits?.maxTools ?? DEFAULTS.maxTools,
        maxToolListChars: opts.limits?.maxToolListChars ?? DEFAULTS.maxToolListChars,
        maxMessageBytes: opts.limits?.maxMessageBytes ?? DEFAULTS.maxMessageBytes,
        ...(ctx.readOnly ? {} : { logDir: path.join(ctx.config.workspaceDir, 'logs') }),
        clientVersion: pkg.version,
      }, loaded.file);
      ctx.provide('mcp', manager);
      ctx.registerToolProvider({
        name: 'mcp',
        list: ({ agent, signal }) => manager.toolsForAgent(agent, signal),
        status: async () => manager.status().map((s) => ({ name: s.name, ok: s.ok, tools: s.tools, ...(s.reason ? { reason: s.reason } : {}) })),
      });
      // If the process exits without close (an uncaught error), no server may outlive it.
      const onExit = () => manager.killSync();
      ctx.hooks.init.tapPromise({ stage: STAGE.DEFAULT }, async () => {
        // The servers file says which programs OryxOS starts: no agent may write it.
        if (loaded.file) ctx.service('sandbox').protect?.(loaded.file, 'it lists the programs OryxOS starts');
        process.on('exit', onExit);
        if (opts.eager) await manager.connectAll();
      });
      ctx.hooks.close.tapPromise({ stage: STAGE.DEFAULT }, async () => {
        process.off('exit', onExit);
        await manager.close();
      });
    },
  };
}
