import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { type } from 'arktype';
import type { Tool } from '@oryxos/kernel';
import { writeAtomic } from '../atomic-write.ts';
import { defineTool, failure, isSandboxDenial, type ToolEnv } from '../define-tool.ts';
import { allowedPath, fileAction } from '../file-access.ts';
import { fsProblem } from '../fs-paths.ts';

/** Start offsets of every occurrence, overlapping ones included ("aa" occurs twice in "aaa"). */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) found.push(at);
  return found;
}

/** `edit_file {path, old, new}`: replaces one exact, unique occurrence of `old`. */
export function editFileTool(env: ToolEnv): Tool {
  return defineTool({
    name: 'edit_file',
    description: 'Replace one exact occurrence of `old` with `new` in a text file. `old` must match the file exactly (whitespace included) and occur exactly once; otherwise nothing changes and the result says how many matches there were.',
    args: type({ path: 'string > 0', old: 'string > 0', new: 'string', '+': 'reject' }),
    describe: {
      path: 'The file, relative to the project folder or absolute.',
      old: 'The exact text to replace; include enough context that it occurs only once.',
      new: 'The replacement text.',
    },
    actions: (a) => [fileAction('read', a.path, env), fileAction('write', a.path, env)],
    async execute(a, ctx) {
      try {
        const real = await allowedPath(a.path, ['read', 'write'], env, ctx);
        const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
        let text: string;
        try {
          const stats = await handle.stat();
          if (stats.isDirectory()) return failure(`edit_file: ${a.path} is a folder`);
          if (!stats.isFile()) return failure(`edit_file: ${a.path} is not a regular file`);
          text = await handle.readFile('utf8');
        } finally {
          await handle.close();
        }
        if (text.includes('\0')) return failure(`edit_file: ${a.path} looks binary; it can only edit text files`);
        const found = occurrences(text, a.old);
        if (found.length === 0) {
          return failure(`edit_file: old text not found in ${a.path} (0 matches); nothing changed. Read the file and copy the exact text, whitespace and line breaks included.`);
        }
        if (found.length > 1) {
          const lines = found.slice(0, 10).map((at) => text.slice(0, at).split('\n').length);
          return failure(`edit_file: old text occurs ${found.length} times in ${a.path} (lines ${lines.join(', ')}${found.length > 10 ? ', …' : ''}); nothing changed. Include more surrounding text so it occurs exactly once.`);
        }
        const at = found[0]!;
        await writeAtomic(real, text.slice(0, at) + a.new + text.slice(at + a.old.length), ctx);
        return `Replaced 1 occurrence in ${a.path} at line ${text.slice(0, at).split('\n').length}`;
      } catch (error) {
        if (isSandboxDenial(error)) throw error;
        return failure(`edit_file: ${fsProblem(error, a.path)}`);
      }
    },
  });
}
