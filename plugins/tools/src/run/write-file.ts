import type { ToolContext, ToolResult } from '@oryxos/kernel';
import { writeAtomic } from '../atomic-write.ts';
import type { ToolEnv } from '../builtin.ts';
import { allowedPath } from '../file-access.ts';
import { fsProblem } from '../fs-paths.ts';
import type { WriteFileArgs } from '../tools/write-file.ts';
import { failure, isSandboxDenial } from './results.ts';

/** Runs `write_file` (defined in tools/write-file.ts): creates or replaces a file atomically (temp file + rename). */
export async function writeFile(a: WriteFileArgs, ctx: ToolContext, env: ToolEnv): Promise<ToolResult | string> {
  try {
    const real = await allowedPath(a.path, ['write'], env, ctx);
    const bytes = await writeAtomic(real, a.content, ctx);
    return `Wrote ${bytes} bytes to ${a.path}`;
  } catch (error) {
    if (isSandboxDenial(error)) throw error;
    return failure(`write_file: ${fsProblem(error, a.path)}`);
  }
}
