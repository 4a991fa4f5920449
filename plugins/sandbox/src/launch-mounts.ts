/**
 * The mounts of one confined launch besides its roots: what the policies deny, the workspace
 * as confined programs see it, and the control files the guard found (control-guard.ts).
 */
import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ConfineSpec } from './confine.ts';
import type { ControlMounts } from './control-guard.ts';
import { identityOf, sameIdentity, type Identity } from './deny-identity.ts';
import { isWithin } from './paths.ts';
import type { Policy, Root } from './policy.ts';
import { viewShows, workspaceView } from './workspace-view.ts';

/** What a launch may see: its roots (real, existing), the workspace, the policies that apply (the global one first). */
export interface LaunchRoots {
  read: string[];
  write: string[];
  workspace: string;
  policies: Policy[];
  controls: ControlMounts;
}

/**
 * The mounts of one launch besides its roots: deny entries masked (and the folders above them
 * in a write root pinned, so they cannot be renamed), the workspace rebuilt without the
 * operator's files, control files read-only (see control-guard.ts), opted-in ones writable.
 */
export async function launchMounts(o: LaunchRoots): Promise<Pick<ConfineSpec, 'deny' | 'pin' | 'view' | 'protect' | 'reopen'>> {
  const { read, write, policies, controls, workspace: ws } = o;
  const hidden = (p: string) => policies.some((n) => !!n.denied(p));
  const visible = read.some((r) => isWithin(ws, r)) && await lstat(ws).then((st) => st.isDirectory(), () => false);
  const inWrite = (p: string) => write.some((w) => isWithin(p, w));
  const view = visible
    ? await workspaceView(ws, { hidden, writable: (p) => inWrite(p) && controls.reopen.includes(p) })
    : undefined;
  // Inside the workspace only what the view binds from disk can take a mount.
  const placeable = (p: string) => !view || !isWithin(p, ws) || viewShows(view, p) === 'bound';
  const deny = [...await existing(policies.flatMap((p) => p.deny).map((d) => d.path)), ...controls.moved].filter((d) => placeable(d.path));
  const protect = controls.protect.filter((p) => !view || !isWithin(p, ws));
  const pin = new Set<string>(controls.pin.filter((p) => !view || !isWithin(p, ws)));
  for (const d of deny) {
    const root = write.filter((w) => isWithin(d.path, w)).sort((a, b) => b.length - a.length)[0];
    if (!root) continue;
    for (let dir = path.dirname(d.path); dir !== root && isWithin(dir, root); dir = path.dirname(dir)) {
      if (!protect.some((g) => isWithin(dir, g)) && placeable(dir) && !(view && dir === ws)) pin.add(dir);
    }
  }
  const reopen = controls.reopen.filter((p) => placeable(p));
  return { deny, pin: [...pin], view, protect, reopen };
}

/**
 * What the scan of the write roots looks for: the identities of the deny entries, files too
 * when one is not (only) at its place — missing there, replaced, or with other hard links.
 */
export async function lookFor(deny: Root[]): Promise<{ ids: Identity[]; files: boolean }> {
  const ids = deny.flatMap((d) => d.ids ?? []);
  let files = false;
  for (const d of deny) {
    if (!d.ids?.length) continue;
    const s = await stat(d.path).catch(() => undefined);
    if (!s || !sameIdentity(identityOf(s), d.ids[0]!) || (s.isFile() && s.nlink > 1)) { files = true; break; }
  }
  return { ids, files };
}

/** The roots that exist, as real paths: what can be mounted. */
export async function mountable(roots: Root[]): Promise<string[]> {
  return (await existing(roots.map((r) => r.path))).map((d) => d.path);
}

/** The paths that exist, as real paths (what a mount must name), each once, with whether it is a folder. */
async function existing(paths: string[]): Promise<{ path: string; dir: boolean }[]> {
  const found = await Promise.all(paths.map(async (p) => {
    try {
      const real = await realpath(p);
      return { path: real, dir: (await stat(real)).isDirectory() };
    } catch {
      return undefined;
    }
  }));
  const seen = new Set<string>();
  return found.filter((x): x is { path: string; dir: boolean } => x !== undefined && !seen.has(x.path) && !!seen.add(x.path));
}

