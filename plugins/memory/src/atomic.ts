import { randomBytes } from 'node:crypto';
import { open, readdir, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Replaces `file` with `content` so that a reader, or a crash at any instant, sees either
 * the old file or the new one: write a temp file in the same folder, fsync it, rename it over
 * the target (atomic within one file system), then fsync the folder. Keeps the file's mode.
 * With `sync: false` the two fsyncs are skipped: still whole-or-nothing for readers and for a
 * killed process, but the newest write may be lost when the machine itself goes down (the
 * guarantee sqlite gives session messages with `synchronous=NORMAL`).
 *
 * @example
 * await writeFileAtomic('/w/memory/MEMORY.md', '# Memory\n');
 */
export async function writeFileAtomic(file: string, content: string, options: { sync?: boolean } = {}): Promise<void> {
  const sync = options.sync ?? true;
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const mode = await stat(file).then((s) => s.mode & 0o777, () => undefined);
  const handle = await open(tmp, 'wx', mode ?? 0o644);
  try {
    await handle.writeFile(content, 'utf8');
    if (mode !== undefined) await handle.chmod(mode);
    if (sync) await handle.sync();
  } catch (error) {
    await handle.close().catch(() => {});
    await unlink(tmp).catch(() => {});
    throw error;
  }
  await handle.close();
  try {
    await rename(tmp, file);
  } catch (error) {
    await unlink(tmp).catch(() => {});
    throw error;
  }
  if (!sync) return;
  // Makes the rename itself durable; not every platform lets a folder be opened.
  const dir = await open(path.dirname(file), 'r').catch(() => undefined);
  await dir?.sync().catch(() => {});
  await dir?.close().catch(() => {});
}

/**
 * Removes the temp files that a killed writer left next to `file`. Call it
 * only while holding the file's lock: then no live writer can own one of them.
 */
export async function removeLeftovers(file: string): Promise<number> {
  const base = escape(path.basename(file));
  const pattern = new RegExp(`^${base}\\.\\d+\\.[0-9a-f]{8}\\.tmp$`);
  const names = await readdir(path.dirname(file)).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    if (pattern.test(name) && await unlink(path.join(path.dirname(file), name)).then(() => true, () => false)) removed++;
  }
  return removed;
}
