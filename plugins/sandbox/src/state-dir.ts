/**
 * What confinement leaves on the machine while programs run, and how the next start finds
 * what a killed process left: a per-user folder in the temp folder holding one journal per
 * process (the placeholders it holds, see placeholders.ts), and the proxy socket folders, whose
 * names carry the pid of the process that made them.
 */
import { lstat, mkdir, mkdtemp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { processAlive } from '@oryxos/plugin-kit';

/** `oryx-proxy-<pid>-XXXXXX`: a proxy socket folder of process `pid`. */
export const proxyPrefix = (pid = process.pid) => `oryx-proxy-${pid}-`;
const PROXY_DIR = /^oryx-proxy-(\d+)-[A-Za-z0-9]{6}$/;
const JOURNAL = /^placeholders-(\d+)\.json$/;

/** One entry of a journal: a placeholder a process made or relies on. */
export interface JournalEntry { path: string; dir: boolean; id: string }

const uid = () => process.getuid?.() ?? -1;

/** True for a folder that is ours alone: not a symbolic link, owned by us, closed to others. */
async function ours(dir: string): Promise<boolean> {
  const s = await lstat(dir).catch(() => undefined);
  return !!s && s.isDirectory() && !s.isSymbolicLink() && (uid() < 0 || s.uid === uid()) && (s.mode & 0o077) === 0;
}

/**
 * The per-user state folder (`<tmp>/oryx-sandbox-<uid>`, mode 0700). When it cannot be made
 * ours (another user made it first), a private folder of this process is used instead, and
 * processes do not see each other's placeholders (each still removes its own).
 */
export class StateDir {
  private constructor(readonly dir: string, readonly shared: boolean) {}

  private static opened: Promise<StateDir> | undefined;

  /** The state folder of this process (made once, shared by every sandbox in it). */
  static shared(): Promise<StateDir> {
    return StateDir.opened ??= StateDir.open();
  }

  static async open(base = tmpdir()): Promise<StateDir> {
    const dir = path.join(base, `oryx-sandbox-${uid() < 0 ? 'user' : uid()}`);
    await mkdir(dir, { mode: 0o700 }).catch(() => {});
    if (await ours(dir)) return new StateDir(dir, true);
    return new StateDir(await mkdtemp(path.join(base, `oryx-sandbox-${process.pid}-`)), false);
  }

  private journal(pid = process.pid): string { return path.join(this.dir, `placeholders-${pid}.json`); }

  /** Replaces this process's journal (removes it when empty). */
  async write(entries: JournalEntry[]): Promise<void> {
    const file = this.journal();
    if (!entries.length) { await rm(file, { force: true }); return; }
    const temp = `${file}.${Math.random().toString(16).slice(2)}.tmp`;
    await writeFile(temp, JSON.stringify(entries), { mode: 0o600 });
    await rename(temp, file);
  }

  /** Every journal in the folder: the pid that wrote it, whether it still runs, its entries. */
  async journals(): Promise<{ pid: number; alive: boolean; entries: JournalEntry[] }[]> {
    const out: { pid: number; alive: boolean; entries: JournalEntry[] }[] = [];
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      const m = JOURNAL.exec(name);
      if (!m) continue;
      const pid = Number(m[1]);
      try {
        const entries = JSON.parse(await readFile(path.join(this.dir, name), 'utf8')) as JournalEntry[];
        out.push({ pid, alive: pid === process.pid || processAlive(pid), entries: Array.isArray(entries) ? entries : [] });
      } catch {
        out.push({ pid, alive: pid === process.pid || processAlive(pid), entries: [] });
      }
    }
    return out;
  }

  /** Removes the journal of a process that has ended. */
  async forget(pid: number): Promise<void> {
    if (pid !== process.pid) await rm(this.journal(pid), { force: true });
  }
}

/**
 * Removes the proxy socket folders of processes that no longer run (a SIGKILLed `oryx` never
 * reached its own cleanup). Only folders of this user are touched. Returns what was removed.
 *
 * @example
 * await removeStaleProxyDirs() // ['/tmp/oryx-proxy-4242-a1b2c3']
 */
export async function removeStaleProxyDirs(base = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(base).catch(() => [] as string[])) {
    const m = PROXY_DIR.exec(name);
    if (!m || Number(m[1]) === process.pid || processAlive(Number(m[1]))) continue;
    const dir = path.join(base, name);
    const s = await lstat(dir).catch(() => undefined);
    if (!s?.isDirectory() || (uid() >= 0 && s.uid !== uid())) continue;
    await rm(dir, { recursive: true, force: true }).then(() => removed.push(dir), () => {});
  }
  return removed;
}
