import { shape as s } from '@oryxos/kernel';
import type { Tool } from '@oryxos/kernel';
import { writeAtomic } from '../atomic-write.ts';
import { builtinTool, failure, isSandboxDenial, type ToolEnv } from '../builtin.ts';
import { allowedPath, fileAction } from '../file-access.ts';
import { fsProblem } from '../fs-paths.ts';

/** `write_file {path, content}`: creates or replaces a file atomically (temp file + rename). */
export function writeFileTool(env: ToolEnv): Tool {
  return builtinTool({
    name: 'write_file',
    parallel: false, // changes files or runs programs: never beside another call
    description: 'Create or replace a text file with the given content (missing parent folders are created). The file is replaced all at once; to change part of a file, use edit_file.',
    args: s.object({ path: s.string({ min: 1 }), content: s.string() }),
    describe: {
      path: 'The file, relative to the project folder or absolute.',
      content: 'The whole new content of the file.',
    },
    actions: (a) => [fileAction('write', a.path, env)],
    async execute(a, ctx) {
      try {
        const real = await allowedPath(a.path, ['write'], env, ctx);
        const bytes = await writeAtomic(real, a.content, ctx);
        return `Wrote ${bytes} bytes to ${a.path}`;
      } catch (error) {
        if (isSandboxDenial(error)) throw error;
        return failure(`write_file: ${fsProblem(error, a.path)}`);
      }
    },
  });
}
