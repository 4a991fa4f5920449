import { shape as s, type Infer } from '@oryxos/schema-kit';
import type { Tool } from '@oryxos/kernel';
import { builtinTool, fileAction, later, type ToolEnv } from '../builtin.ts';

const args = s.object({ path: s.string({ min: 1 }), offset: s.integer({ min: 0 }).optional(), limit: s.integer({ min: 1 }).optional() });
export type ReadFileArgs = Infer<typeof args>;

/** `read_file {path, offset?, limit?}`: text of a file, a window of lines, cut to maxOutputChars. */
export function readFileTool(env: ToolEnv): Tool {
  const max = env.options.maxOutputChars;
  return builtinTool({
    name: 'read_file',
    idempotent: true, // it only reads: a call cut off by a crash may simply run again
    description: `Read a text file. Returns lines exactly as stored, from line offset+1, at most limit lines (default ${env.options.maxReadLines}) and ${max} characters; a note at the end says when more follows and which offset to continue from.`,
    args,
    describe: {
      path: 'The file, relative to the project folder or absolute.',
      offset: 'Lines to skip from the start. Default 0.',
      limit: `Most lines to return. Default ${env.options.maxReadLines}.`,
    },
    actions: (a) => [fileAction('read', a.path, env)],
    execute: later((r) => r.readFile, env),
  });
}
