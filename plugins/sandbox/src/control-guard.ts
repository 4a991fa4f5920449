/**
 * Control files inside confinement, whether or not they exist. Before each confined launch
 * with a write root the write roots are scanned (control-scan.ts): every control path found is
 * mounted read-only, and where OryxOS itself looks at its next start (the project folder and
 * the folders above it inside a write root) an absent control name gets a read-only
 * placeholder (placeholders.ts), so no program can create node_modules, package.json, a config
 * file or the workspace there. Deeper, a name can only be checked after the fact: a control
 * path that appears between two scans is judged by when it was made (its status change time):
 * made while a program that ran for less than {@link LONG_RUN_MS} ran, it is moved into
 * quarantine; while only a long-running one ran (a server), it is reported, since it may just as
 * well be yours; while none ran, it is yours. One made while a program still runs is judged
 * when that program ends.
 */
import { lstat, mkdir, realpath, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { SandboxEvent } from '@oryxos/contracts';
import type { ControlFiles } from './control-files.ts';
import { scanControls, type ControlScan, type FoundControl, type ScanOptions } from './control-scan.ts';
import { sandboxStateDir } from './operator-files.ts';
import { isWithin } from './paths.ts';
import { Placeholders, type Wanted } from './placeholders.ts';
import { CONFIG_NAMES } from './protected-names.ts';
import type { StateDir } from './state-dir.ts';

/** A confined program running longer than this (a server) is not the only suspect of what appears while it runs. */
export const LONG_RUN_MS = 10 * 60 * 1000;

/** What OryxOS looks for in the project folder, and in the folders above it, at its next start. */
const AT_ROOT = ['node_modules', 'package.json', '.npmrc', '.git', ...CONFIG_NAMES];
const ABOVE_ROOT = ['node_modules', 'package.json'];

export interface GuardDeps {
  /** The project folder (of oryx.config.ts), real. */
  root: string;
  /** The workspace, real. */
  workspace: string;
  /** The global write roots that exist, real: what is scanned. */
  writeRoots(): Promise<string[]>;
  controls: ControlFiles;
  /** Whether a folder is not to be looked into (denied: masked). */
  denied(p: string): boolean;
  /** Identities of deny entries to look for at other places (see ScanOptions.find). */
  lookFor(): Promise<ScanOptions['find']>;
  state(): Promise<StateDir>;
  warn(message: string): void;
  record(event: SandboxEvent): void;
}

/** One confined launch with write access, from its start to its end (`ms`: how long it ran, once it has ended). */
interface Run { started: number; origin?: string; ms?: number }

/** What a launch holds until it ends. */
export interface GuardTicket { run?: Run; placeholders: Wanted[] }

/** The mounts the control files of one launch need. */
export interface ControlMounts {
  /** Read-only: control paths found, placeholders, protected files. */
  protect: string[];
  /** Writable again: opted-in control paths inside those. */
  reopen: string[];
  /** Git folders: writable (commits write objects, refs, the index) but mounted onto themselves, so they cannot be moved or replaced. */
  pin: string[];
  /** Denied files and folders found away from their deny entry (moved, linked): to mask too. */
  moved: { path: string; dir: boolean }[];
  ticket: GuardTicket;
}

export class ControlGuard {
  private known: Map<string, FoundControl> | undefined;
  private readonly running = new Set<Run>();
  /** Launches that ended lately (for 2 × LONG_RUN_MS): what appeared while they ran is theirs. */
  private ended: Run[] = [];
  private placeholders: Placeholders | undefined;
  private scanning: Promise<unknown> = Promise.resolve();

  constructor(private readonly d: GuardDeps) {}

  /**
   * Scans, judges what appeared since the last scan, and lists the mounts for a launch whose
   * write roots are `write` (already narrowed; empty for a launch that writes nothing).
   * `optedIn` is what the config and every narrowing agent let be written.
   */
  async prepare(write: string[], o: { origin?: string; optedIn(p: string): boolean }): Promise<ControlMounts> {
    if (!write.length) return { protect: [], reopen: [], pin: [], moved: [], ticket: { placeholders: [] } };
    const inWrite = (p: string) => write.some((w) => isWithin(p, w));
    const { optedIn, origin } = o;
    const scan = await this.rescan();
    const held = await (await this.holder()).everyones();
    const protect = new Set<string>();
    const pin: string[] = [];
    for (const [p, f] of scan.found) {
      if (!inWrite(p) || optedIn(p) || isWithin(p, this.d.workspace)) continue;
      // A git folder is refined: its control entries are listed one by one.
      if (f.dir && path.basename(p) === '.git' && !f.git && !held.has(p)) pin.push(p);
      else if (!f.link) protect.add(p);
      else {
        // The link itself cannot take a mount (the mount follows it): what it points to can, when
        // that is writable; replacing the link is judged after the fact.
        const target = await realpath(p).catch(() => undefined);
        if (target && inWrite(target) && !optedIn(target)) protect.add(target);
      }
    }
    const guards = this.d.controls.paths.filter((g) => inWrite(g) && !optedIn(g) && !isWithin(g, this.d.workspace));
    for (const g of await existingOnly(guards)) protect.add(g);
    // A git folder without hooks gets an empty one (as `git init` makes), so none can be added.
    for (const dir of scan.gitDirs) {
      if (held.has(dir)) continue;
      const hooks = path.join(dir, 'hooks');
      if (!inWrite(hooks) || optedIn(hooks) || scan.found.has(hooks) || !await mkdir(hooks, { mode: 0o755 }).then(() => true, () => false)) continue;
      protect.add(hooks);
      const s = await lstat(hooks).catch(() => undefined);
      if (s) this.known?.set(hooks, { dir: true, link: false, id: `${s.dev}:${s.ino}`, git: true });
    }
    const placeholders = await (await this.holder()).acquire(this.wanted(write).filter((w) => !optedIn(w.path)));
    for (const w of placeholders) protect.add(w.path);
    const reopen = this.d.controls.reopened.filter((p) => inWrite(p) && optedIn(p) && (isWithin(p, this.d.workspace) || [...protect].some((g) => isWithin(p, g))));
    const run: Run = { started: Date.now(), origin };
    this.running.add(run);
    return { protect: [...protect], reopen: await existingOnly(reopen), pin, moved: scan.moved.filter((m) => !this.d.denied(m.path)), ticket: { run, placeholders } };
  }

  /** After a launch ended: what it created is judged, its placeholders given back. Never throws. */
  async finish(ticket: GuardTicket): Promise<void> {
    try {
      if (ticket.run && this.running.delete(ticket.run)) {
        this.ended.push({ ...ticket.run, ms: Date.now() - ticket.run.started });
        await this.rescan();
      }
    } catch (error) {
      this.d.warn(`could not check what a confined program left in the write roots: ${(error as Error).message}`);
    } finally {
      if (ticket.placeholders.length) await this.placeholders?.release(ticket.placeholders).catch(() => {});
    }
  }

  /** Forgets launches that never ended and removes the placeholders no launch uses (the sandbox closes). */
  async close(): Promise<void> {
    this.running.clear();
    await this.placeholders?.flush().catch(() => {});
  }

  /** Removes what processes killed before they could clean up left behind (their placeholders). */
  async removeStale(): Promise<string[]> {
    return (await this.holder()).removeStale();
  }

  private async holder(): Promise<Placeholders> {
    return this.placeholders ??= Placeholders.of(await this.d.state());
  }

  /** The absent control names where OryxOS looks at its next start, inside the write roots. */
  private wanted(write: string[]): Wanted[] {
    const inWrite = (p: string) => write.some((w) => isWithin(p, w));
    const out: Wanted[] = [];
    const root = this.d.root;
    for (const name of AT_ROOT) out.push({ path: path.join(root, name), dir: true });
    for (let dir = path.dirname(root); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
      for (const name of ABOVE_ROOT) out.push({ path: path.join(dir, name), dir: true });
    }
    out.push({ path: this.d.workspace, dir: true });
    return out.filter((w) => inWrite(w.path) && inWrite(path.dirname(w.path)));
  }

  /** One scan at a time: each judges what appeared since the one before. */
  private rescan(): Promise<ControlScan> {
    const next = this.scanning.then(() => this.scanAndJudge(), () => this.scanAndJudge());
    this.scanning = next.catch(() => {});
    return next;
  }

  private async scanAndJudge(): Promise<ControlScan> {
    const roots = await this.d.writeRoots();
    const scan = await scanControls(roots, {
      skip: (dir) => this.d.denied(dir) || isWithin(dir, this.d.workspace) || this.d.controls.optedIn(dir),
      find: await this.d.lookFor(),
    });
    if (scan.truncated) this.d.warn(`the write roots hold more than ${scan.dirs} folders; control files below the first ${scan.dirs} are not checked inside confinement: narrow files.write`);
    const before = this.known;
    const next = new Map(scan.found);
    this.known = next;
    if (!before) return scan; // the first scan: what is there is the project's
    const held = await (await this.holder()).everyones();
    const appeared = [...scan.found].filter(([p, f]) => {
      const was = before.get(p);
      // A symbolic link cannot be mounted read-only: replaced (by anything else, or another link), it is new.
      return (!was || (was.link && (!f.link || was.id !== f.id))) && !this.d.controls.optedIn(p) && !held.has(p);
    }).map(([p]) => p);
    const forget = (p: string) => { for (const q of [...next.keys()]) if (isWithin(q, p)) next.delete(q); };
    for (const p of appeared.filter((x) => !appeared.some((q) => q !== x && isWithin(x, q)))) {
      // When it was made (or moved there): its status change time.
      const at = (await lstat(p).catch(() => undefined))?.ctimeMs;
      if (at === undefined) { forget(p); continue; }
      const verdict = this.judge(at);
      if (verdict.kind === 'pending') { forget(p); continue; } // judged again once the program running then ends
      if (verdict.kind === 'quarantine') {
        const moved = await this.quarantine(p);
        forget(p);
        this.report(p, moved ? `moved to ${moved}` : 'removed (it could not be moved)', 'deny', verdict.runs);
      } else if (verdict.kind === 'report') {
        this.report(p, 'left in place: it appeared while only a long-running confined program ran, so it may be yours; check it', 'allow', verdict.runs);
      }
    }
    const horizon = Date.now() - 2 * LONG_RUN_MS;
    this.ended = this.ended.filter((r) => r.started + r.ms! > horizon);
    return scan;
  }

  /**
   * Who made a control path that appeared at `at`: a confined program that ran for less than
   * {@link LONG_RUN_MS} around then (quarantine), one still running (judged once it ends), only
   * a long-running one (report: it may be yours), or none (yours).
   */
  private judge(at: number): { kind: 'quarantine' | 'report'; runs: Run[] } | { kind: 'pending' | 'yours' } {
    const slack = 100; // ms: the clocks are the same, only their rounding differs
    const during = (r: Run) => at >= r.started - slack && at <= r.started + r.ms! + slack;
    const short = this.ended.filter((r) => r.ms! < LONG_RUN_MS && during(r));
    if (short.length) return { kind: 'quarantine', runs: short };
    if ([...this.running].some((r) => at >= r.started - slack)) return { kind: 'pending' };
    const long = this.ended.filter(during);
    return long.length ? { kind: 'report', runs: long } : { kind: 'yours' };
  }

  /** Moves a control path a confined program created into `<workspace>/sandbox/quarantine/`. */
  private async quarantine(p: string): Promise<string | undefined> {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const rel = path.relative(this.d.root, p);
    const inside = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : p.slice(1);
    const dest = path.join(sandboxStateDir(this.d.workspace), 'quarantine', `${stamp}-${Math.random().toString(16).slice(2, 8)}`, inside);
    try {
      await mkdir(path.dirname(dest), { recursive: true, mode: 0o700 });
      await rename(p, dest);
      return dest;
    } catch {
      await rm(p, { recursive: true, force: true }).catch(() => {});
      return undefined;
    }
  }

  private report(p: string, what: string, decision: 'allow' | 'deny', ran: Run[]): void {
    const rel = path.relative(this.d.root, p);
    const shown = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : p;
    const who = [...new Set(ran.map((r) => r.origin ?? 'a process'))].join(', ');
    const reason = `${shown} is a control file that appeared in a write root while a confined program ran (${who}); confined programs cannot create control files: ${what}`;
    this.d.warn(reason);
    this.d.record({ decision, kind: 'file', target: p, reason, origin: 'confinement' });
  }
}

async function exists(p: string): Promise<boolean> {
  return lstat(p).then(() => true, () => false);
}

async function existingOnly(paths: string[]): Promise<string[]> {
  const found = await Promise.all(paths.map(exists));
  return paths.filter((_, i) => found[i]);
}

