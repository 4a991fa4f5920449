import { statSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * What a path was when last read, and the path whose `stat` vouches for it: the file or folder
 * itself, or — when it was absent — its parent folder, whose mtime changes when an entry is
 * created, removed or renamed in it. `mtimeMs` -1: the witness did not exist either.
 */
interface Entry { value: unknown; witness: string; mtimeMs: number; size: number }

/**
 * Agent files as last read: a file's text (or a folder's entries) is kept with the `stat` of its
 * witness and read again only when that `stat` changed, so an edit applies to the next run
 * without a restart and a busy server does not re-read and re-parse every AGENT.md, project
 * file and skill for every run. An absent file is vouched for by its folder, so the project
 * files an agent does not have (most of its ten or so paths) cost one `stat` per folder: four
 * a run for an agent without project files or skills, instead of ten.
 */
export class FileCache {
  private readonly known = new Map<string, Entry>();

  /** The file's text; undefined when it does not exist (or cannot be read). */
  text(file: string): Promise<string | undefined> {
    return this.cached(file, () => readFile(file, 'utf8')) as Promise<string | undefined>;
  }

  /** The folder's entries, by name; undefined when it does not exist. */
  entries(dir: string): Promise<{ name: string; dir: boolean }[] | undefined> {
    return this.cached(dir, async () => (await readdir(dir, { withFileTypes: true })).map((e) => ({ name: e.name, dir: e.isDirectory() }))) as Promise<{ name: string; dir: boolean }[] | undefined>;
  }

  /** What the path held when last read (`text` or `entries`), without a `stat`. */
  last(key: string): unknown {
    return this.known.get(key)?.value;
  }

  /** Whether every path was read before and none of their witnesses changed since (one `stat` per witness). */
  fresh(keys: Iterable<string>): boolean {
    const at = new Map<string, Stamp>();
    for (const key of keys) {
      const entry = this.known.get(key);
      if (!entry) return false;
      let s = at.get(entry.witness);
      if (!s) at.set(entry.witness, s = stamp(entry.witness));
      if (!same(entry, s)) return false;
    }
    return true;
  }

  private async cached(key: string, load: () => Promise<unknown>): Promise<unknown> {
    const entry = this.known.get(key);
    if (entry && same(entry, stamp(entry.witness))) return entry.value;
    // The folder is looked at before the path, so a file created in between changes what was seen.
    const folder = path.dirname(key);
    const before = stamp(folder);
    const own = stamp(key);
    const value = own.mtimeMs === -1 ? undefined : await load().catch(() => undefined);
    this.known.set(key, own.mtimeMs === -1 ? { value, witness: folder, ...before } : { value, witness: key, ...own });
    return value;
  }
}

type Stamp = { mtimeMs: number; size: number };

/**
 * The one `stat` of the cache, synchronous on purpose: a `stat` of a file the kernel has in its
 * cache takes ~2 µs, while through the promise API each went to libuv's four-thread pool (shared
 * with DNS lookups of provider calls) and came back a loop turn later — in the peer loop
 * benchmark, 40 → 24.5 µs a step in memory (~160 µs a run) for an agent's four witnesses.
 */
function stamp(p: string): Stamp {
  let info;
  try {
    info = statSync(p, { throwIfNoEntry: false });
  } catch {
    // A path that cannot be (ENAMETOOLONG, ENOTDIR, EACCES) is absent, as a missing one is.
  }
  return { mtimeMs: info?.mtimeMs ?? -1, size: info?.size ?? -1 };
}

const same = (e: Entry, s: Stamp) => e.mtimeMs === s.mtimeMs && e.size === s.size;
