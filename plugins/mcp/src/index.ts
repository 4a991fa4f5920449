import path from 'node:path';
import { STAGE, type Plugin } from '@oryxos/kernel';
import { loadServers } from './config-file.ts';
import { McpManager } from './manager.ts';
import { DEFAULTS, validateOptions, type McpOptions } from './options.ts';
import { VERSION } from './version.ts';

export { ERROR_CODES, type McpErrorCode } from './errors.ts';
export { McpManager } from './manager.ts';
export type { McpServerStatus, McpToolInfo, ServerState } from './server.ts';
export type { McpOptions, McpServerConfig } from './options.ts';
export { toToolResult, type McpCallResult } from './content.ts';
export { exposedName, serverMayMatch } from './names.ts';
export { expandString } from './env.ts';
export { loadServers, type ServerEntry, type LoadedServers } from './config-file.ts';
export { VERSION } from './version.ts';

declare module '@oryxos/kernel' {
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
  return {
    name: 'mcp',
    version: VERSION,
    kernel: '^1',
    async setup(kernel) {
      const loaded = await loadServers({ options: opts, root: kernel.config.root, workspaceDir: kernel.config.workspaceDir });
      for (const secret of loaded.secrets) kernel.secrets.add(secret);
      for (const name of loaded.overridden) {
        kernel.log.info(`mcp: server "${name}" is declared in both ${loaded.file} and the mcp() options; the options entry is used`);
      }
      const manager = new McpManager(loaded.servers, {
        kernel,
        timeoutMs: opts.timeoutMs ?? DEFAULTS.timeoutMs,
        connectTimeoutMs: opts.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
        baseDelayMs: opts.reconnect?.baseDelayMs ?? DEFAULTS.baseDelayMs,
        maxDelayMs: opts.reconnect?.maxDelayMs ?? DEFAULTS.maxDelayMs,
        maxTools: opts.limits?.maxTools ?? DEFAULTS.maxTools,
        maxToolListChars: opts.limits?.maxToolListChars ?? DEFAULTS.maxToolListChars,
        maxMessageBytes: opts.limits?.maxMessageBytes ?? DEFAULTS.maxMessageBytes,
        logDir: path.join(kernel.config.workspaceDir, 'logs'),
        clientVersion: VERSION,
      }, loaded.file);
      kernel.provide('mcp', manager);
      kernel.registerToolProvider({
        name: 'mcp',
        list: ({ agent, signal }) => manager.toolsForAgent(agent, signal),
        status: async () => manager.status().map((s) => ({ name: s.name, ok: s.ok, tools: s.tools, ...(s.reason ? { reason: s.reason } : {}) })),
      });
      // If the process exits without close (an uncaught error), no server may outlive it.
      const onExit = () => manager.killSync();
      kernel.hooks.init.tapPromise({ name: 'mcp', stage: STAGE.DEFAULT }, async () => {
        // The servers file says which programs OryxOS starts: no agent may write it.
        if (loaded.file) kernel.service('sandbox').protect?.(loaded.file, 'it lists the programs OryxOS starts');
        process.on('exit', onExit);
        if (opts.eager) await manager.connectAll();
      });
      kernel.hooks.close.tapPromise({ name: 'mcp', stage: STAGE.DEFAULT }, async () => {
        process.off('exit', onExit);
        await manager.close();
      });
    },
  };
}
