/**
 * Control files: what OryxOS (or a tool the user runs later) reads as code, policy or prompt.
 * An agent that could write one would widen its own powers at the next start, so they are
 * never written, whatever the write roots say, unless the config opts in by name.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { atomicTempTarget } from '@oryxos/plugin-kit';
import { isWithin } from './paths.ts';
import { PROTECTED_NAMES } from './protected-names.ts';

/** A protected file or folder (everything below a folder is protected too). */
export interface Guard {
  path: string;
  /** Why it is protected, for the denial reason. */
  why: string;
}

/** Parts of the workspace, most specific first; the workspace itself comes last. */
const WORKSPACE_PARTS: [string, string][] = [
  ['agents', 'agent files and skills become the prompt and the sandbox: of later runs'],
  ['skills', 'skills become the prompt of later runs'],
  ['mcp_servers.yaml', 'it lists the programs OryxOS starts'],
  ['AGENTS.md', 'bootstrap files become the system prompt of later runs'],
  ['SOUL.md', 'bootstrap files become the system prompt of later runs'],
  ['USER.md', 'bootstrap files become the system prompt of later runs'],
  ['memory', 'memory is written by the memory tools only'],
];

/** Files of the project folder (beside the config) that the next start reads. */
export const PROJECT_FILES: [string, string][] = [
  ['AGENTS.md', 'the project\'s AGENTS.md becomes the system prompt of later runs'],
  ['CLAUDE.md', 'the project\'s CLAUDE.md becomes the system prompt of later runs'],
  ['.env', 'oryx loads .env into its environment (API keys, provider URLs) at every start'],
  ['.env.local', 'oryx loads .env.local into its environment (API keys, provider URLs) at every start'],
];

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"\n]+)['"]/g;
const EXTENSIONS = ['', '.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json', '/index.ts', '/index.js', '/index.mjs'];
const MAX_IMPORTS = 200;

/**
 * The config file and every local file it imports, transitively (relative or absolute
 * specifiers found in import/export/require statements). Package imports resolve into
 * node_modules, which is protected by name.
 */
export async function configClosure(file: string): Promise<string[]> {
  const seen = new Set<string>();
  const queue = [file];
  while (queue.length && seen.size < MAX_IMPORTS) {
    const current = queue.shift()!;
    if (seen.has(current)) continue;
    seen.add(current);
    let text: string;
    try { text = await readFile(current, 'utf8'); } catch { continue; }
    for (const m of text.matchAll(SPECIFIER)) {
      const spec = m[1]!;
      if (!spec.startsWith('.') && !path.isAbsolute(spec)) continue;
      const base = path.resolve(path.dirname(current), spec);
      // TypeScript sources import './x.js' meaning './x.ts'.
      const candidates = [...EXTENSIONS.map((e) => base + e), base.replace(/\.(m|c)?js$/, '.$1ts')];
      for (const candidate of candidates) {
        if (await stat(candidate).then((s) => s.isFile(), () => false)) { queue.push(candidate); break; }
      }
    }
  }
  return [...seen];
}

/** The guards of a project: its config and imports, its workspace, and what plugins add. */
export async function projectGuards(input: { configFile?: string; workspaceDir: string }): Promise<Guard[]> {
  const guards: Guard[] = [];
  if (input.configFile) {
    for (const [i, f] of (await configClosure(input.configFile)).entries()) {
      guards.push({ path: f, why: i === 0 ? 'the config file runs as code at every start' : `${path.basename(input.configFile)} imports it, so it runs as code at every start` });
    }
  }
  if (input.configFile) {
    const root = path.dirname(input.configFile);
    for (const [name, why] of PROJECT_FILES) guards.push({ path: path.join(root, name), why });
  }
  for (const [part, why] of WORKSPACE_PARTS) guards.push({ path: path.join(input.workspaceDir, part), why });
  guards.push({ path: input.workspaceDir, why: "the workspace folder holds OryxOS's own state (agents, memory, the database, logs)" });
  return guards;
}

/**
 * Compiles a `files.allowControlWrites` glob (`*` within a name, `**` any depth) to a RegExp on
 * a real path. A trailing `/**` also matches the folder itself.
 */
export function compileGlob(pattern: string, root: string): RegExp {
  const abs = path.isAbsolute(pattern) ? pattern : path.join(root, pattern);
  if (abs.endsWith('/**') && !/[*?]/.test(abs.slice(0, -3))) {
    return new RegExp(`^${abs.slice(0, -3).replace(/[.+^${}()|[\]\\]/g, '\\$&')}(?:/.*)?$`);
  }
  let re = '';
  for (let i = 0; i < abs.length; i++) {
    const c = abs[i]!;
    if (c === '*' && abs[i + 1] === '*') {
      const slash = abs[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** What a real path falls under, if it is a control file: the guard's path and why. */
export interface ControlHit { path: string; why: string }

/**
 * The control files of one policy: exact guards resolved at start, protected names anywhere,
 * and the opt-ins of `files.allowControlWrites`.
 */
export class ControlFiles {
  private readonly optIns: { source: string; re: RegExp; literal?: string }[];

  constructor(private readonly guards: Guard[], optIns: string[], private readonly root: string) {
    this.optIns = optIns.map((source) => {
      const literal = /[*?]/.test(source.replace(/\/\*\*$/, '')) ? undefined : path.resolve(root, source.replace(/\/\*\*$/, ''));
      return { source, re: compileGlob(source, root), literal };
    });
  }

  /** Adds a guard (a plugin's own control file); guards only narrow. */
  add(guard: Guard): void { this.guards.unshift(guard); }

  /** The guards, for an agent's policy (its opt-ins narrow the same files). */
  get list(): Guard[] { return [...this.guards]; }

  /** Exact guard paths (for confinement: what to bind read-only). */
  get paths(): string[] { return this.guards.map((g) => g.path); }

  /** Opt-ins that name a path or a `folder/**`, resolved: writable inside confined processes. */
  get reopened(): string[] { return this.optIns.flatMap((o) => (o.literal ? [o.literal] : [])); }

  /** The guard a real path falls under, or undefined. An atomic-write temp file counts as the file it replaces. */
  hit(real: string): ControlHit | undefined {
    const p = atomicTempTarget(real) ?? real;
    const guard = this.guards.find((g) => isWithin(p, g.path));
    if (guard) return guard;
    // The outermost protected name decides: a package.json inside node_modules is node_modules' code.
    const parts = p.split(path.sep);
    for (let i = 0; i < parts.length; i++) {
      const why = Object.hasOwn(PROTECTED_NAMES, parts[i]!) ? PROTECTED_NAMES[parts[i]!] : undefined;
      if (why) return { path: parts.slice(0, i + 1).join(path.sep), why };
    }
    return undefined;
  }

  /** Whether `files.allowControlWrites` lets this real path be written. */
  optedIn(real: string): boolean {
    const p = atomicTempTarget(real) ?? real;
    return this.optIns.some((o) => o.re.test(p));
  }

  /** The opt-in that would allow `real`: the file itself when it sits right in the guard, else its folder. */
  suggestion(real: string, hit: ControlHit): string {
    const p = atomicTempTarget(real) ?? real;
    const rel = (x: string) => {
      const r = path.relative(this.root, x);
      return !r.startsWith('..') && !path.isAbsolute(r) ? r : x;
    };
    return p === hit.path || path.dirname(p) === hit.path ? rel(p) : `${rel(path.dirname(p))}/**`;
  }
}
