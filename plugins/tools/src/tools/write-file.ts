import { shape as s, type Infer } from '@oryxos/schema-kit';
import type { Tool } from '@oryxos/kernel';
import { builtinTool, fileAction, later, type ToolEnv } from '../builtin.ts';

const args = s.object({ path: s.string({ min: 1 }), content: s.string() });
export type WriteFileArgs = Infer<typeof args>;

/** `write_file {path, content}`: creates or replaces a file atomically (temp file + rename). */
export function writeFileTool(env: ToolEnv): Tool {
  return builtinTool({
    name: 'write_file',
    parallel: false, // changes files or runs programs: never beside another call
    description: 'Create or replace a text file with the given content (missing parent folders are created). The file is replaced all at once; to change part of a file, use edit_file.',
    args,
    describe: {
      path: 'The file, relative to the project folder or absolute.',
      content: 'The whole new content of the file.',
    },
    actions: (a) => [fileAction('write', a.path, env)],
    execute: later((r) => r.writeFile, env),
  });
}
