import { shape as s, type Infer } from '@oryxos/schema-kit';
import type { Tool } from '@oryxos/kernel';
import { builtinTool, fileAction, later, type ToolEnv } from '../builtin.ts';

const args = s.object({ path: s.string({ min: 1 }), old: s.string({ min: 1 }), new: s.string() });
export type EditFileArgs = Infer<typeof args>;

/** `edit_file {path, old, new}`: replaces one exact, unique occurrence of `old`. */
export function editFileTool(env: ToolEnv): Tool {
  return builtinTool({
    name: 'edit_file',
    parallel: false, // changes files or runs programs: never beside another call
    description: 'Replace one exact occurrence of `old` with `new` in a text file. `old` must match the file exactly (whitespace included) and occur exactly once; otherwise nothing changes and the result says how many matches there were.',
    args,
    describe: {
      path: 'The file, relative to the project folder or absolute.',
      old: 'The exact text to replace; include enough context that it occurs only once.',
      new: 'The replacement text.',
    },
    actions: (a) => [fileAction('read', a.path, env), fileAction('write', a.path, env)],
    execute: later((r) => r.editFile, env),
  });
}
