/**
 * The throwaway copy of the project a case runs in, so its tools (which run for real) can
 * write, delete and create files without touching the project, and each case starts from the
 * same files plus its own fixtures. What is OryxOS's own state is shared instead of copied:
 * `node_modules` is linked (the config's imports resolve as in the project), and so is the
 * project's database file (the `database` service's, when it is a file in the project): the
 * session, run record and audit rows of the case land in the project's database, where
 * `oryx sessions show` finds them. `.git` and the workspace's `logs/` and `cache/` are left out.
 */
import { constants } from 'node:fs';
import { copyFile, cp, lstat, mkdir, mkdtemp, readdir, readlink, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { errorMessage } from '@oryxos/provider-spec';
import type { Fixture } from './cases.ts';
import { evalError } from './errors.ts';

/** A copy of the project: the paths a case's kernel is rooted at. */
export interface Scratch {
  root: string;
  workspaceDir: string;
  /** The copy of the config file, when the project has one. */
  configFile?: string;
  /** Removes the copy (links only, never what they point to). */
  remove(): Promise<void>;
}

/** A database's companion files: a linked database keeps its own next to it (SQLite resolves the link). */
const COMPANIONS = ['-wal', '-shm', '-journal'];

/** What the copy leaves out and what it links instead of copying, as absolute paths. */
interface CopyRules { skip: Set<string>; link: Set<string> }

/** Copies `from` into `to` by the rules above. */
async function copyProject(from: string, to: string, rules: CopyRules): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const name of await readdir(from)) {
    const source = path.join(from, name);
    const target = path.join(to, name);
    if (rules.skip.has(source) || name === '.git') continue;
    // A file that goes while the copy is made (another case's recording moved into place) is left out.
    const info = await lstat(source).catch((error: NodeJS.ErrnoException) => { if (error.code === 'ENOENT') return undefined; throw error; });
    if (!info) continue;
    if (name === 'node_modules' && info.isDirectory()) { await symlink(source, target, 'dir'); continue; }
    if (info.isSymbolicLink()) { await symlink(await readlink(source), target); continue; }
    if (info.isDirectory()) { await copyProject(source, target, rules); continue; }
    if (!info.isFile()) continue;
    if (rules.link.has(source)) { await symlink(source, target); continue; }
    // A copy-on-write clone where the file system has them, a plain copy elsewhere.
    await copyFile(source, target, constants.COPYFILE_FICLONE).catch((error: NodeJS.ErrnoException) => { if (error.code !== 'ENOENT') throw error; });
  }
}

/** The project a copy is made of. */
export interface ScratchSource {
  root: string;
  workspaceDir: string;
  file?: string;
  /** The database file to link rather than copy (absolute), when the project's database is one. */
  database?: string;
}

/**
 * Makes the copy of the project at `root` (workspace `workspaceDir`) and writes the case's
 * fixtures into it. Throws ORYX_E_EVAL_SCRATCH when the copy cannot be made.
 *
 * @example
 * const scratch = await makeScratch({ root: '/proj', workspaceDir: '/proj/.oryxos', file: '/proj/oryx.config.ts' }, []);
 * try { … } finally { await scratch.remove(); }
 */
export async function makeScratch(project: ScratchSource, fixtures: Fixture[]): Promise<Scratch> {
  let root: string | undefined;
  try {
    // Its real path: the tools and the sandbox resolve the project folder to it.
    root = await realpath(await mkdtemp(path.join(tmpdir(), 'oryx-eval-')));
    const link = new Set(project.database ? [project.database] : []);
    const skip = new Set([path.join(project.workspaceDir, 'logs'), path.join(project.workspaceDir, 'cache'), ...[...link].flatMap((db) => COMPANIONS.map((c) => db + c))]);
    const rules = { skip, link };
    await copyProject(project.root, root, rules);
    const inCopy = (p: string) => path.join(root!, path.relative(project.root, p));
    // A workspace outside the project folder (workspace: '../state') is copied beside it.
    const workspaceDir = inCopy(project.workspaceDir);
    if (path.relative(project.root, project.workspaceDir).startsWith('..')) await copyProject(project.workspaceDir, workspaceDir, rules);
    for (const f of fixtures) {
      const target = path.join(root, f.path);
      await mkdir(path.dirname(target), { recursive: true });
      if (f.from !== undefined) await cp(f.from, target, { recursive: true });
      else await writeFile(target, f.content ?? '');
    }
    const made = root;
    return {
      root: made, workspaceDir, ...(project.file ? { configFile: inCopy(project.file) } : {}),
      remove: () => rm(made, { recursive: true, force: true }),
    };
  } catch (error) {
    if (root) await rm(root, { recursive: true, force: true }).catch(() => {});
    throw evalError('ORYX_E_EVAL_SCRATCH', `Could not make the throwaway copy of ${project.root}: ${errorMessage(error)}`, { cause: error });
  }
}
