/**
 * Placeholders: an empty folder (or empty file) made at a control name that does not exist,
 * where OryxOS itself looks at its next start (node_modules and package.json, which node
 * resolves packages through, the config file names, the workspace), so that confinement can
 * mount it read-only and no confined program can create the name. A mount needs something to
 * mount on, so the placeholder is visible outside the sandbox while a confined program runs;
 * it is removed a moment ({@link LINGER_MS}) after the last program that needed it ended, if it
 * is still empty and still the one made here (a folder you filled in the meantime stays). Processes of one user see each
 * other's placeholders through journals (state-dir.ts), so one never removes a placeholder
 * another still mounts; those of a killed process are removed at the next start.
 */
import { lstat, mkdir, open, readdir, rmdir, unlink } from 'node:fs/promises';
import type { JournalEntry, StateDir } from './state-dir.ts';

/** How long a placeholder no program uses stays, for the next program to take it (ms). */
export const LINGER_MS = 2000;

/** A control name to hold: a folder placeholder, or an empty file (`.npmrc`, which npm reads as empty settings). */
export interface Wanted { path: string; dir: boolean }

const idOf = (s: { dev: number; ino: number }) => `${s.dev}:${s.ino}`;

/** Still exactly the placeholder made: same inode, and empty. */
async function untouched(e: JournalEntry): Promise<boolean> {
  const s = await lstat(e.path).catch(() => undefined);
  if (!s || idOf(s) !== e.id || s.isSymbolicLink()) return false;
  if (e.dir) return s.isDirectory() && (await readdir(e.path).catch(() => ['?'])).length === 0;
  return s.isFile() && s.size === 0;
}

/** An empty folder or an empty file: what a placeholder is. */
async function looksEmpty(p: string, s: { isDirectory(): boolean; isFile(): boolean; size: number }): Promise<boolean> {
  if (s.isFile()) return s.size === 0;
  return s.isDirectory() && (await readdir(p).catch(() => ['?'])).length === 0;
}

async function remove(e: JournalEntry): Promise<void> {
  if (!(await untouched(e))) return;
  // rmdir refuses a folder that something was put into since the check.
  await (e.dir ? rmdir(e.path) : unlink(e.path)).catch(() => {});
}

/**
 * The placeholders this process holds, counted per path, and the journal that tells other
 * processes about them.
 *
 * @example
 * const held = await placeholders.acquire([{ path: '/proj/node_modules', dir: true }]);
 * // … mount held.paths read-only, run the program …
 * await placeholders.release(held);
 */
export class Placeholders {
  private static readonly perState = new Map<string, Placeholders>();
  private readonly held = new Map<string, { entry: JournalEntry; users: number }>();
  private writing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  private constructor(private readonly state: StateDir) {}

  /** The one registry of this process for a state folder: every sandbox of the process shares it (and its journal). */
  static of(state: StateDir): Placeholders {
    let found = Placeholders.perState.get(state.dir);
    if (!found) Placeholders.perState.set(state.dir, (found = new Placeholders(state)));
    return found;
  }

  /**
   * Makes a placeholder at each wanted path that does not exist, and takes the placeholders
   * other processes made there. Returns the paths that now hold one; a path that exists
   * otherwise (a real control file or folder) is not among them: it is protected as it is.
   */
  async acquire(wanted: Wanted[]): Promise<Wanted[]> {
    let others: Promise<Map<string, JournalEntry>> | undefined;
    const theirsAt = async (p: string) => (await (others ??= this.others())).get(p);
    let changed = false;
    // Each path on its own, all at once: a launch waits for one round of file system calls, not a dozen.
    const taken = await Promise.all(wanted.map(async (w): Promise<JournalEntry | undefined> => {
      const mine = this.held.get(w.path)?.entry;
      if (mine && await untouched(mine)) return mine;
      if (mine) { this.held.delete(w.path); changed = true; } // filled or replaced since: not a placeholder any more
      // A name that exists otherwise (a real control file) is protected as it is; only an empty
      // folder or file can be another process's placeholder.
      const there = await lstat(w.path).catch(() => undefined);
      if (there && !(await looksEmpty(w.path, there))) return undefined;
      const theirs = there ? await theirsAt(w.path) : undefined;
      if (there && !(theirs && await untouched(theirs))) return undefined;
      const entry = theirs ?? await make(w);
      if (entry) changed = true;
      return entry;
    }));
    const got: Wanted[] = [];
    for (const [i, entry] of taken.entries()) if (entry) { this.hold(entry); got.push(wanted[i]!); }
    if (changed) await this.save();
    return got;
  }

  /** The placeholders other processes' journals list, by path. */
  private async others(): Promise<Map<string, JournalEntry>> {
    const out = new Map<string, JournalEntry>();
    for (const j of await this.state.journals()) if (j.pid !== process.pid) for (const e of j.entries) out.set(e.path, e);
    return out;
  }

  /**
   * Gives back what `acquire` returned. A placeholder no launch uses any more stays for
   * {@link LINGER_MS} (the next program, most often a moment later, takes it again: no folder
   * made and removed per call), then the last user removes it unless another process holds it.
   */
  async release(paths: Wanted[]): Promise<void> {
    let idle = false;
    for (const w of paths) {
      const h = this.held.get(w.path);
      if (h && --h.users <= 0) { h.users = 0; idle = true; }
    }
    if (!idle) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => { void this.flush(); }, LINGER_MS);
    this.timer.unref();
  }

  /** Removes now the placeholders no launch of this process uses (the sandbox closes). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    const last: JournalEntry[] = [];
    for (const [p, h] of this.held) if (h.users <= 0) { this.held.delete(p); last.push(h.entry); }
    if (!last.length) return;
    await this.save();
    const used = new Set<string>();
    for (const j of await this.state.journals()) if (j.pid !== process.pid && j.alive) for (const e of j.entries) used.add(e.path);
    await Promise.all(last.filter((e) => !used.has(e.path)).map(remove));
  }

  /**
   * Removes the placeholders of processes that ended without releasing them (SIGKILL), unless a
   * running process holds them too, and forgets their journals. Returns the paths removed.
   */
  async removeStale(): Promise<string[]> {
    const journals = await this.state.journals();
    const used = new Set(journals.filter((j) => j.alive).flatMap((j) => j.entries.map((e) => e.path)));
    const removed: string[] = [];
    for (const j of journals.filter((x) => !x.alive)) {
      for (const e of j.entries) {
        if (used.has(e.path) || !(await untouched(e))) continue;
        await remove(e);
        removed.push(e.path);
      }
      await this.state.forget(j.pid);
    }
    return removed;
  }

  /** The placeholders any process holds now (this one's and those in other journals, still untouched). */
  async everyones(): Promise<Set<string>> {
    const out = new Set(this.held.keys());
    const theirs = (await this.state.journals()).filter((j) => j.pid !== process.pid).flatMap((j) => j.entries);
    const kept = await Promise.all(theirs.map(untouched));
    for (const [i, e] of theirs.entries()) if (kept[i]) out.add(e.path);
    return out;
  }

  private hold(entry: JournalEntry): void {
    const h = this.held.get(entry.path);
    if (h) { h.entry = entry; h.users++; } else this.held.set(entry.path, { entry, users: 1 });
  }

  /** Writes the journal, one write at a time, in the order asked. */
  private save(): Promise<void> {
    const entries = [...this.held.values()].map((h) => h.entry);
    this.writing = this.writing.then(() => this.state.write(entries), () => this.state.write(entries));
    return this.writing;
  }
}

/** Makes the placeholder, or undefined when the path exists already (or cannot be made). */
async function make(w: Wanted): Promise<JournalEntry | undefined> {
  try {
    if (w.dir) await mkdir(w.path, { mode: 0o755 });
    else await (await open(w.path, 'wx', 0o644)).close();
  } catch {
    return undefined;
  }
  const s = await lstat(w.path).catch(() => undefined);
  return s ? { path: w.path, dir: w.dir, id: idOf(s) } : undefined;
}
