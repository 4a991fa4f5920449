import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ToolContext } from '@oryxos/kernel';
import { atomicTempPath } from '@oryxos/plugin-kit';

/**
 * Writes `content` to `target` (a canonical path the sandbox allowed) all at once: a temp
 * file next to it, flushed, then renamed over it. A reader sees the old file or the new one,
 * never half of it, and a crash leaves the old file intact. The file keeps its permissions.
 */
export async function writeAtomic(target: string, content: string, ctx: ToolContext): Promise<number> {
  const dir = path.dirname(target);
  let mode = 0o666;
  try {
    const s = await lstat(target);
    if (s.isDirectory()) throw Object.assign(new Error(`${target} is a folder`), { code: 'EISDIR' });
    if (s.isFile()) mode = s.mode & 0o7777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dir, { recursive: true });
  const temp = atomicTempPath(target, randomBytes(6).toString('hex'));
  await ctx.enforce({ kind: 'file', op: 'write', path: temp });
  // O_EXCL and O_NOFOLLOW: never write through something that appeared at the temp name.
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    try {
      await handle.writeFile(content, 'utf8');
      if (mode !== 0o666) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  return Buffer.byteLength(content);
}
