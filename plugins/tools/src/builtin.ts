import type { Tool, ToolContext, ToolResult } from '@oryxos/kernel';
import { absolutePath, defineTool, type ToolArgs, type ToolDefinition } from '@oryxos/plugin-kit';
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

/** The sandbox action for a path argument, resolved against the project folder. */
export const fileAction = (op: 'read' | 'write', p: string, env: ToolEnv) => ({ kind: 'file' as const, op, path: absolutePath(p, env.root) });

/** What a tool does when called, given the validated arguments (in `run/`, loaded on first call). */
export type Execute<A> = (args: A, ctx: ToolContext, env: ToolEnv) => Promise<ToolResult | string>;
type Runtime = typeof import('./runtime.ts');

let runtime: Runtime | undefined;
let loading: Promise<Runtime> | undefined;

/**
 * A tool's `execute` whose code loads with the first call of any built-in tool: a command that
 * only lists tools (`oryx tools`, `oryx agents`) never compiles it. Once loaded, a call goes
 * straight to the implementation (no extra await).
 */
export function later<A>(pick: (r: Runtime) => Execute<A>, env: ToolEnv): (args: A, ctx: ToolContext) => Promise<ToolResult | string> {
  return (args, ctx) => runtime
    ? pick(runtime)(args, ctx, env)
    : (loading ??= import('./runtime.ts').then((r) => (runtime = r))).then((r) => pick(r)(args, ctx, env));
}
