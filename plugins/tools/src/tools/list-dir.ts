import type { Dirent } from 'node:fs';
import { lstat, readdir, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import { shape as s } from '@oryxos/kernel';
import type { Tool, ToolContext } from '@oryxos/kernel';
import { builtinTool, failure, isSandboxDenial, type ToolEnv } from '../builtin.ts';
import { allowedPath, fileAction } from '../file-access.ts';
import { display, fsProblem } from '../fs-paths.ts';

const MAX_DEPTH = 10;

/** `list_dir {path, depth?}`: folders and files below a folder; symlinks shown, never followed. */
export function listDirTool(env: ToolEnv): Tool {
  const { maxListEntries, maxOutputChars } = env.options;
  return builtinTool({
    name: 'list_dir',
    description: `List a folder: one entry per line, paths relative to the project folder, folders ending in "/", file sizes in bytes, symbolic links as "name -> target" (not followed). Goes depth levels down (default 1, at most ${MAX_DEPTH}); at most ${maxListEntries} entries.`,
    args: s.object({ path: s.string({ min: 1 }), depth: s.integer({ min: 1, max: 10 }).optional() }),
    describe: {
      path: 'The folder, relative to the project folder or absolute ("." for the project itself).',
      depth: 'How many levels to go down. Default 1 (only the folder\'s own entries).',
    },
    actions: (a) => [fileAction('read', a.path, env)],
    async execute(a, ctx) {
      let real: string;
      try {
        real = await allowedPath(a.path, ['read'], env, ctx);
        if (!(await stat(real)).isDirectory()) return failure(`list_dir: ${a.path} is a file, not a folder; use read_file`);
      } catch (error) {
        if (isSandboxDenial(error)) throw error;
        return failure(`list_dir: ${fsProblem(error, a.path)}`);
      }
      const lines: string[] = [];
      let stopped = false;
      const walk = async (dir: string, level: number): Promise<void> => {
        let entries: Dirent[];
        try {
          entries = await readdir(dir, { withFileTypes: true });
        } catch (error) {
          lines.push(`${display(dir, env.root)}/ [${fsProblem(error, 'folder')}]`);
          return;
        }
        entries.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
        for (const entry of entries) {
          if (lines.length >= maxListEntries) { stopped = true; return; }
          const full = path.join(dir, entry.name);
          const shown = display(full, env.root);
          if (entry.isSymbolicLink()) {
            lines.push(`${shown} -> ${await readlink(full).catch(() => '?')}`);
          } else if (entry.isDirectory()) {
            if (level >= (a.depth ?? 1)) { lines.push(`${shown}/`); continue; }
            // Each folder is enforced before it is read: a denied one is named, not opened.
            const denied = await denial(ctx, full);
            lines.push(`${shown}/${denied ? ` [not listed: ${denied}]` : ''}`);
            if (!denied) await walk(full, level + 1);
          } else {
            const size = await lstat(full).then((s) => s.size).catch(() => undefined);
            lines.push(size === undefined ? shown : `${shown} (${size} bytes)`);
          }
        }
      };
      await walk(real, 1);
      let out = lines.join('\n') || `(${a.path} is empty)`;
      if (out.length > maxOutputChars) {
        out = `${out.slice(0, maxOutputChars)}\n[listing cut at ${maxOutputChars} characters; list a subfolder or lower depth]`;
      } else if (stopped) {
        out += `\n[listing stopped at ${maxListEntries} entries; list a subfolder or lower depth]`;
      }
      return out;
    },
  });
}

async function denial(ctx: ToolContext, dir: string): Promise<string | undefined> {
  try {
    await ctx.enforce({ kind: 'file', op: 'read', path: dir });
    return undefined;
  } catch (error) {
    if (isSandboxDenial(error)) return 'denied by the sandbox';
    throw error;
  }
}
