import { isOryxError, type Tool, type ToolResult } from '@oryxos/kernel';
import { defineTool, type ToolArgs, type ToolDefinition } from '@oryxos/plugin-kit';
import type { ResolvedToolsOptions } from './options.ts';

/** What every built-in tool is built with. */
export interface ToolEnv {
  /** The folder of oryx.config.ts: relative paths resolve against it. */
  root: string;
  options: ResolvedToolsOptions;
}

/** A built-in tool: {@link defineTool} with source `builtin`. */
export function builtinTool<A extends ToolArgs>(def: ToolDefinition<A>): Tool {
  return defineTool({ ...def, source: 'builtin' });
}

/** An error result the model sees and can act on. */
export function failure(content: string, retryable = false): ToolResult {
  return { content, isError: true, retryable };
}

/** True for the sandbox's denial, which must reach the kernel unchanged (it records the reason). */
export function isSandboxDenial(error: unknown): boolean {
  return isOryxError(error) && error.code === 'ORYX_E_SANDBOX_DENIED';
}
