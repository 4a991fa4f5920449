import type { ToolContext } from '@oryxos/kernel';
import { absolutePath, canonicalPath } from '@oryxos/plugin-kit';
import type { ToolEnv } from './builtin.ts';

/**
 * Resolves a path the model gave (relative to the project) to the real path and enforces
 * the sandbox on that real path, right before the caller opens it. Callers open the
 * returned path, never the one the model spelled.
 */
export async function allowedPath(p: string, ops: ('read' | 'write')[], env: ToolEnv, ctx: ToolContext): Promise<string> {
  const real = await canonicalPath(absolutePath(p, env.root));
  for (const op of ops) await ctx.enforce({ kind: 'file', op, path: real });
  return real;
}
