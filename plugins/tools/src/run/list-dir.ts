import type { Dirent } from 'node:fs';
import { lstat, readdir, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ToolContext, ToolResult } from '@oryxos/kernel';
import type { ToolEnv } from '../builtin.ts';
import { allowedPath } from '../file-access.ts';
import { display, fsProblem } from '../fs-paths.ts';
import type { ListDirArgs } from '../tools/list-dir.ts';
import { failure, isSandboxDenial } from './results.ts';

/** Runs `list_dir` (defined in tools/list-dir.ts). */
export async function listDir(a: ListDirArgs, ctx: ToolContext, env: ToolEnv): Promise<ToolResult | string> {
  const { maxListEntries, maxOutputChars } = env.options;
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
