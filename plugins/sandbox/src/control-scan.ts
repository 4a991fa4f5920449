/**
 * Finding the control paths of the write roots on disk, at any depth: every protected name
 * (`.git`, `node_modules`, `package.json`, config files, …) and, inside every git folder, the
 * entries that make git run something (its config, hooks, commondir, …). Confinement makes what
 * it finds read-only; what appears between two scans while a confined program runs is what that
 * program created.
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { identityOf, sameIdentity, type Identity } from './deny-identity.ts';
import { GIT_CONTROL, PROTECTED_NAMES } from './protected-names.ts';

/** Folders looked into at most per scan; past that the scan stops and says so. */
export const MAX_SCANNED_DIRS = 50_000;
const CONCURRENCY = 16;

/** One control path found. */
export interface FoundControl {
  dir: boolean;
  /** A symbolic link: a mount cannot make the name itself read-only. */
  link: boolean;
  /** Device and inode (of the link itself for a symbolic link). */
  id: string;
  /** Inside a git folder (its config, hooks, …), not a protected name. */
  git: boolean;
}

export interface ControlScan {
  found: Map<string, FoundControl>;
  /** `.git` folders (not files) found, whose control entries are in `found`. */
  gitDirs: string[];
  dirs: number;
  /** More than `maxDirs` folders: the rest was not looked at. */
  truncated: boolean;
  /** Where the identities of `find` were found. */
  moved: { path: string; dir: boolean }[];
}

export interface ScanOptions {
  /** Folders not to look into: masked deny entries, opted-in folders, the workspace. */
  skip?(dir: string): boolean;
  maxDirs?: number;
  /**
   * Identities of denied files and folders to look for (moved or linked away from their deny
   * entry). Each folder is stat'ed; files only when `files` is set (a denied file is missing
   * from its place or has other links), since that costs a stat per file.
   */
  find?: { ids: Identity[]; files: boolean };
}

const isProtected = (name: string) => Object.hasOwn(PROTECTED_NAMES, name);

/**
 * Walks the roots (symbolic links are not followed) and lists their control paths. A protected
 * folder is not looked into (it is protected whole), except a `.git` folder, whose control
 * entries are listed one by one.
 *
 * @example
 * const scan = await scanControls(['/proj'], {});
 * scan.found.has('/proj/sub/.git/hooks') // a nested repository's hooks
 */
export async function scanControls(roots: string[], o: ScanOptions = {}): Promise<ControlScan> {
  const max = o.maxDirs ?? MAX_SCANNED_DIRS;
  const scan: ControlScan = { found: new Map(), gitDirs: [], dirs: 0, truncated: false, moved: [] };
  const wanted = o.find?.ids.length ? o.find : undefined;
  const look = async (p: string, dir: boolean) => {
    const s = await lstat(p).catch(() => undefined);
    if (s && wanted!.ids.some((x) => sameIdentity(x, identityOf(s)))) scan.moved.push({ path: p, dir });
  };
  const queue = [...new Set(roots)];
  const record = async (p: string, git: boolean) => {
    const s = await lstat(p).catch(() => undefined);
    if (s) scan.found.set(p, { dir: s.isDirectory(), link: s.isSymbolicLink(), id: `${s.dev}:${s.ino}`, git });
    return s;
  };
  const visit = async (dir: string) => {
    let entries: Dirent[];
    try { entries = await readdir(dir, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (isProtected(e.name)) {
        const s = await record(full, false);
        if (e.name === '.git' && s?.isDirectory()) {
          scan.gitDirs.push(full);
          await Promise.all(GIT_CONTROL.map((name) => record(path.join(full, name), true)));
        }
      } else if (e.isDirectory() && !o.skip?.(full)) {
        if (wanted) await look(full, true);
        queue.push(full);
      } else if (wanted?.files && e.isFile()) {
        await look(full, false);
      }
    }
  };
  const worker = async () => {
    for (let dir = queue.shift(); dir !== undefined; dir = queue.shift()) {
      if (scan.dirs >= max) { scan.truncated = true; queue.length = 0; return; }
      scan.dirs++;
      await visit(dir);
    }
  };
  // Workers pick folders as the walk finds them; one that finds the queue empty while
  // another still lists a folder just ends, so keep starting them until the queue stays empty.
  while (queue.length) await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
  return scan;
}
