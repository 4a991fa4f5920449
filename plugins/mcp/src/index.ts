import path from 'node:path';
import { STAGE, pluginPackage, type Plugin } from '@oryxos/kernel';
import { loadServers, shownPath } from './config-file.ts';
import { McpManager } from './manager.ts';
import { DEFAULTS, validateOptions, type McpOptions } from './options.ts';

export { ERROR_CODES, type McpErrorCode } from './errors.ts';
export { McpManager } from './manager.ts';
export type { McpServerStatus, McpToolInfo, ServerState, CallOptions, McpResourceInfo, McpResourceTemplateInfo, McpPromptInfo, McpPromptResult } from './server.ts';
export type { McpToolAnnotations } from './tool-view.ts';
export type { McpOptions, McpServerConfig, McpOAuthConfig, McpTransportKind } from './options.ts';
export type { CallInfo, ClientHooks, ElicitHandler, McpElicitRequest, McpElicitResult, McpProgress, ProgressHandler } from './client-hooks.ts';
export type { Authorizer } from './auth/oauth.ts';
export { toToolResult, resourceResult, type McpCallResult, type McpResourceContent, type McpToolResult } from './content.ts';
export { exposedName, serverMayMatch } from './names.ts';
export { expandString, parseEnvFile } from './env.ts';
export { normalizeEntry, foreignName } from './config-dialects.ts';
export { parseJsonc } from './jsonc.ts';
export { meaningfulLines } from './stderr-tail.ts';
export { loadServers, type ServerEntry, type LoadedServers, type ConfigProblem, type ServerOrigin } from './config-file.ts';

declare module '@oryxos/contracts' {
  interface Services {
    /** The MCP servers: status, tools, direct calls (provided by @oryxos/plugin-mcp). */
    mcp: McpManager;
  }
}

/**
 * The MCP client plugin: tools from MCP servers (stdio, Streamable HTTP, legacy HTTP+SSE)
 * declared in `.oryxos/mcp_servers.yaml`, in the plugin's `servers`, or in the files other
 * clients write (`.mcp.json` by default), offered to agents as `<server>__<tool>`. Servers
 * start on first use, behind the sandbox (`exec` for a command, `http` for a URL). A file or
 * entry that cannot be used is reported and skipped; it never stops OryxOS.
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
      for (const { name, used, ignored } of loaded.overridden) {
        ctx.log.info(`server "${name}" is declared in ${[used, ...ignored].map(shownPath).join(' and ')}; the entry of ${shownPath(used)} is used`);
      }
      for (const note of loaded.notes) ctx.log.info(note);
      for (const problem of loaded.problems) ctx.log.warn(`${problem.error.message}; its servers are left out`);
      for (const entry of loaded.servers) if (entry.error) ctx.log.warn(`server "${entry.name}" is unavailable: ${entry.error.message}`);
      const manager = await McpManager.create(loaded.servers, {
        ctx,
        timeoutMs: opts.timeoutMs ?? DEFAULTS.timeoutMs,
        maxCallMs: opts.maxCallMs ?? DEFAULTS.maxCallMs,
        connectTimeoutMs: opts.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
        baseDelayMs: opts.reconnect?.baseDelayMs ?? DEFAULTS.baseDelayMs,
        maxDelayMs: opts.reconnect?.maxDelayMs ?? DEFAULTS.maxDelayMs,
        maxToolListChars: opts.limits?.maxToolListChars ?? DEFAULTS.maxToolListChars,
        maxMessageBytes: opts.limits?.maxMessageBytes ?? DEFAULTS.maxMessageBytes,
        // Every start writes its log, read-only commands too: that is where a failure's cause is.
        logDir: path.join(ctx.config.workspaceDir, 'logs'),
        clientVersion: pkg.version,
      }, {
        ...(loaded.file ? { file: loaded.file } : {}), serversFile: loaded.serversFile, problems: loaded.problems, maxTools: opts.limits?.maxTools ?? DEFAULTS.maxTools,
        ...(opts.tokenDir ? { tokenDir: path.resolve(ctx.config.root, opts.tokenDir) } : {}),
      });
      ctx.provide('mcp', manager);
      ctx.registerToolProvider({
        name: 'mcp',
        list: ({ agent, signal }) => manager.toolsForAgent(agent, signal),
        status: async () => manager.sourceStatus(),
      });
      // If the process exits without close (an uncaught error), no server may outlive it.
      const onExit = () => manager.killSync();
      ctx.hooks.init.tapPromise({ stage: STAGE.DEFAULT }, async () => {
        // The servers files say which programs OryxOS starts: no agent may write them, whether they exist yet or not.
        const sandbox = ctx.service('sandbox');
        for (const file of loaded.controlFiles) sandbox.protect?.(file, 'it lists the programs OryxOS starts');
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
