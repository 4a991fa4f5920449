import { realpath } from 'node:fs/promises';
import { pluginPackage, type Plugin, type Tool } from '@oryxos/kernel';
import { warnUnavailableTools } from './availability.ts';
import type { ToolEnv } from './builtin.ts';
import { resolveOptions, type ToolName, type ToolsOptions } from './options.ts';
import { currentTimeTool } from './tools/current-time.ts';
import { editFileTool } from './tools/edit-file.ts';
import { httpRequestTool } from './tools/http-request.ts';
import { listDirTool } from './tools/list-dir.ts';
import { readFileTool } from './tools/read-file.ts';
import { shellTool } from './tools/shell.ts';
import { writeFileTool } from './tools/write-file.ts';

export { ERROR_CODES, type ToolsErrorCode } from './errors.ts';
export { TOOL_NAMES, type ToolName, type ToolsOptions } from './options.ts';
export type { ToolEnv } from './builtin.ts';

const FACTORIES: Record<ToolName, (env: ToolEnv) => Tool> = {
  read_file: readFileTool,
  write_file: writeFileTool,
  edit_file: editFileTool,
  list_dir: listDirTool,
  shell: shellTool,
  http_request: httpRequestTool,
  current_time: currentTimeTool,
};

/**
 * The built-in tools (source `builtin`): read_file, write_file, edit_file, list_dir, shell,
 * http_request, current_time. Relative paths resolve against the folder of oryx.config.ts.
 * Every call is mapped to sandbox actions before it runs and enforced again at the point of
 * I/O, so enable a sandbox plugin: without one the kernel denies every action.
 *
 * @example
 * // oryx.config.ts
 * plugins: [sandbox({ files: { read: ['.'], write: ['.'] } }), tools({ exclude: ['shell'], maxOutputChars: 10_000 })]
 */
export default function tools(options: ToolsOptions = {}): Plugin {
  const resolved = resolveOptions(options);
  return {
    ...pluginPackage(import.meta.url),
    name: 'tools',
    options: resolved,
    async setup(ctx) {
      const env: ToolEnv = { root: await realpath(ctx.config.root), options: resolved };
      for (const name of resolved.tools) {
        const tool = FACTORIES[name](env);
        // The kernel asks a person before every call of a tool marked so.
        ctx.registerTool(resolved.approval[name] ? { ...tool, approval: 'always' } : tool);
      }
      warnUnavailableTools(ctx, new Set(resolved.tools));
    },
  };
}

export { tools };
