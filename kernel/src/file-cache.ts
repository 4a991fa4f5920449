import type { Stats } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';

/** How long a file's cached state is trusted before it is checked again (mtime and size). */
export const RECHECK_MS = 250;

interface Entry<T> { value: T | undefined; mtimeMs: number; size: number; checkedAt: number }

/**
 * Agent files as last read: a file's text (or a folder's entries) is kept with its mtime and
 * size, trusted for {@link RECHECK_MS}, then checked with one `stat` and read again only when
 * it changed. An edit shows on the next run at most that long after it is written (hot reload
 * stays), and a run no longer reads every AGENT.md, bootstrap file and skill from disk.
 * A missing file is cached as missing the same way.
 */
export class FileCache {
  private readonly texts = new Map<string, Entry<string>>();
  private readonly dirs = new Map<string, Entry<{ name: string; dir: boolean }[]>>();
  /** The check in flight per path (texts and folders never share a path). */
  private readonly pending = new Map<string, Promise<unknown>>();

  constructor(private readonly recheckMs = RECHECK_MS) {}

  /** The file's text; undefined when it does not exist (or cannot be read). */
  text(file: string): Promise<string | undefined> {
    return this.cached(this.texts, file, () => readFile(file, 'utf8'));
  }

  /** The folder's entries, by name; undefined when it does not exist. */
  entries(dir: string): Promise<{ name: string; dir: boolean }[] | undefined> {
    return this.cached(this.dirs, dir, async () => (await readdir(dir, { withFileTypes: true })).map((e) => ({ name: e.name, dir: e.isDirectory() })));
  }

  private cached<T>(map: Map<string, Entry<T>>, key: string, load: () => Promise<T>): Promise<T | undefined> {
    const entry = map.get(key);
    // Trusted: no async function (its promise and frame) for what is nearly every lookup.
    if (entry && performance.now() - entry.checkedAt < this.recheckMs) return Promise.resolve(entry.value);
    // One check at a time per file: concurrent runs that find it stale share it (else every one
    // of them would stat, and read, the same file at the same moment).
    let pending = this.pending.get(key) as Promise<T | undefined> | undefined;
    if (!pending) {
      pending = this.check(map, key, entry, load).finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    return pending;
  }

  private async check<T>(map: Map<string, Entry<T>>, key: string, entry: Entry<T> | undefined, load: () => Promise<T>): Promise<T | undefined> {
    const now = performance.now(); // before the stat: an edit during it is seen by the next check
    const info: Stats | undefined = await stat(key).catch(() => undefined);
    if (entry && (info ? entry.mtimeMs === info.mtimeMs && entry.size === info.size : entry.value === undefined)) {
      entry.checkedAt = now;
      return entry.value;
    }
    const value = info ? await load().catch(() => undefined) : undefined;
    map.set(key, { value, mtimeMs: info?.mtimeMs ?? -1, size: info?.size ?? -1, checkedAt: now });
    return value;
  }
}
