/**
 * The workspace as a confined program sees it: read-only, without the operator's files (the
 * token, the database, logs, users' and conversations' memories, the sandbox's records). The
 * workspace folder, `memory/`, `agents/` and each agent's folder are rebuilt inside the sandbox
 * as empty read-only folders holding only the entries that may be seen, bound from disk. So
 * what OryxOS creates there later (a new user's memory, the database's WAL file, the token on
 * the first `oryx web`) stays invisible to a program that was started before.
 */
import type { Dirent } from 'node:fs';
import { readdir, readlink } from 'node:fs/promises';
import path from 'node:path';

/** One entry of a rebuilt folder: bound from disk (read-only unless opted in), a symbolic link, or rebuilt itself. */
type ViewEntry =
  | { kind: 'bind'; path: string; rw: boolean }
  | { kind: 'link'; path: string; target: string }
  | { kind: 'view'; view: WorkspaceView };

/** A folder rebuilt inside the sandbox. */
export interface WorkspaceView { path: string; entries: ViewEntry[] }

export interface ViewOptions {
  /** Whether the operator's (or a denied) path must stay invisible. */
  hidden(p: string): boolean;
  /** Opted-in control paths (files.allowControlWrites): bound writable. */
  writable(p: string): boolean;
}

/** Folders rebuilt rather than bound: where OryxOS adds the operator's files as it runs. */
function rebuilt(ws: string, p: string): boolean {
  return p === ws || p === path.join(ws, 'memory') || p === path.join(ws, 'agents') || path.dirname(p) === path.join(ws, 'agents');
}

/**
 * The view of the workspace folder `ws` (a real path that exists).
 *
 * @example
 * const view = await workspaceView('/proj/.oryxos', { hidden: (p) => p.endsWith('web-token'), writable: () => false });
 * viewArgs(view) // ['--tmpfs', '/proj/.oryxos', '--ro-bind', '/proj/.oryxos/AGENTS.md', …, '--remount-ro', '/proj/.oryxos']
 */
export async function workspaceView(ws: string, o: ViewOptions, dir = ws): Promise<WorkspaceView> {
  let list: Dirent[] = [];
  try { list = await readdir(dir, { withFileTypes: true }); } catch { /* gone since: an empty folder */ }
  const entries: ViewEntry[] = [];
  for (const e of list.sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (o.hidden(p)) continue;
    if (e.isSymbolicLink()) {
      const target = await readlink(p).catch(() => undefined);
      if (target !== undefined) entries.push({ kind: 'link', path: p, target });
    } else if (e.isDirectory() && rebuilt(ws, p) && !o.writable(p)) {
      entries.push({ kind: 'view', view: await workspaceView(ws, o, p) });
    } else if (e.isDirectory() || e.isFile()) {
      entries.push({ kind: 'bind', path: p, rw: o.writable(p) });
    }
  }
  return { path: dir, entries };
}

/**
 * How the view shows a path below its folder: `bound` (from disk, so a mount may be made on
 * it: a deny mask, an opted-in file made writable), `rebuilt` (a folder of the view) or
 * `absent` (hidden, or not there when the view was built).
 */
export function viewShows(view: WorkspaceView, p: string): 'bound' | 'rebuilt' | 'absent' {
  if (p === view.path) return 'rebuilt';
  for (const e of view.entries) {
    if (e.kind === 'view') {
      if (p === e.view.path || p.startsWith(`${e.view.path}${path.sep}`)) return viewShows(e.view, p);
    } else if (e.kind === 'bind' && (p === e.path || p.startsWith(`${e.path}${path.sep}`))) {
      return 'bound';
    }
  }
  return 'absent';
}

/**
 * The bubblewrap arguments that build the view: a tmpfs per rebuilt folder, the entries bound
 * into it, then the tmpfs made read-only (after its entries' mount points were made in it).
 */
export function viewArgs(view: WorkspaceView): string[] {
  const args = ['--tmpfs', view.path];
  for (const e of view.entries) {
    if (e.kind === 'view') args.push(...viewArgs(e.view));
    else if (e.kind === 'link') args.push('--symlink', e.target, e.path);
    else args.push(e.rw ? '--bind' : '--ro-bind', e.path, e.path);
  }
  args.push('--remount-ro', view.path);
  return args;
}
