import { readFile, readdir, stat } from 'node:fs/promises';

interface Entry<T> { value: T | undefined; mtimeMs: number; size: number }

/**
 * Agent files as last read: a file's text (or a folder's entries) is kept with its mtime and
 * size and read again only when a `stat` says it changed, so an edit applies to the next run
 * without a restart and a busy server does not re-read and re-parse every AGENT.md, project
 * file and skill for every run. A missing file is cached as missing the same way.
 */
export class FileCache {
  private readonly texts = new Map<string, Entry<string>>();
  private readonly dirs = new Map<string, Entry<{ name: string; dir: boolean }[]>>();

  /** The file's text; undefined when it does not exist (or cannot be read). */
  text(file: string): Promise<string | undefined> {
    return this.cached(this.texts, file, () => readFile(file, 'utf8'));
  }

  /** The folder's entries, by name; undefined when it does not exist. */
  entries(dir: string): Promise<{ name: string; dir: boolean }[] | undefined> {
    return this.cached(this.dirs, dir, async () => (await readdir(dir, { withFileTypes: true })).map((e) => ({ name: e.name, dir: e.isDirectory() })));
  }

  private async cached<T>(map: Map<string, Entry<T>>, key: string, load: () => Promise<T>): Promise<T | undefined> {
    const info = await stat(key).catch(() => undefined);
    const entry = map.get(key);
    if (entry && (info ? entry.mtimeMs === info.mtimeMs && entry.size === info.size : entry.mtimeMs === -1)) return entry.value;
    const value = info ? await load().catch(() => undefined) : undefined;
    map.set(key, { value, mtimeMs: info?.mtimeMs ?? -1, size: info?.size ?? -1 });
    return value;
  }
}
