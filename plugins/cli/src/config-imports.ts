/**
 * What a bare import in `oryx.config.ts` resolves to when the project does not have the
 * package: the OryxOS installation's copy (`@oryxos/plugin-sqlite` with a global install),
 * then a plugin installed with `oryx plugins install`. The project's own packages always win,
 * so a project can pin another version of any of them.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

type Exports = string | null | { [key: string]: Exports } | Exports[];

/** The file an export target resolves to under the `import`/`node`/`default` conditions. */
function target(value: Exports): string | undefined {
  if (typeof value === 'string') return value;
  if (!value) return undefined;
  if (Array.isArray(value)) return value.map(target).find(Boolean);
  for (const condition of ['import', 'node', 'default']) {
    const found = condition in value ? target(value[condition]!) : undefined;
    if (found) return found;
  }
  return undefined;
}

/**
 * Every import path a package offers (`name`, `name/testing`, …, no `*` patterns) mapped to
 * its file, from the package's `exports` (or `main`).
 */
export function packageEntries(dir: string): { name: string; entries: Record<string, string> } {
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string; exports?: Exports; main?: string };
  const exported = pkg.exports;
  const subpaths: Record<string, Exports> = exported === undefined ? { '.': pkg.main ?? 'index.js' }
    : typeof exported === 'string' || Array.isArray(exported) || !Object.keys(exported ?? {}).some((k) => k.startsWith('.'))
      ? { '.': exported }
      : exported as Record<string, Exports>;
  const entries: Record<string, string> = {};
  for (const [sub, value] of Object.entries(subpaths)) {
    const file = target(value);
    if (sub.includes('*') || !file || sub.endsWith('package.json') || !existsSync(path.resolve(dir, file))) continue;
    entries[pkg.name + sub.slice(1)] = path.resolve(dir, file);
  }
  return { name: pkg.name, entries };
}

/** The folder of package `name` as Node would find it from `dir` (its node_modules and those above). */
export function findPackage(name: string, dir: string): string | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    const candidate = path.join(d, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return realpathSync(candidate);
    if (path.dirname(d) === d) return undefined;
  }
}

/** The packages a folder with a package.json depends on (its `dependencies`), as they resolve from it. */
function dependenciesOf(dir: string): string[] {
  let pkg: { dependencies?: Record<string, string> };
  try { pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')); } catch { return []; }
  return Object.keys(pkg.dependencies ?? {}).map((name) => findPackage(name, dir)).filter((d): d is string => d !== undefined);
}

/**
 * jiti aliases for the config in `configDir`: each import path of a package that the project
 * cannot resolve but one of `sources` offers, first source first. A source is a package folder:
 * itself (a linked plugin) and its dependencies (the installation, the plugins folder) count.
 *
 * @example
 * await importAliases('/home/me/proj', ['/usr/lib/node_modules/@oryxos/cli', '~/.local/share/oryxos'])
 * // { '@oryxos/kernel': '/usr/lib/node_modules/@oryxos/cli/node_modules/@oryxos/kernel/dist/index.js', … }
 */
export async function importAliases(configDir: string, sources: readonly string[]): Promise<Record<string, string>> {
  const alias: Record<string, string> = {};
  const taken = new Set<string>();
  for (const source of sources) {
    const own = existsSync(path.join(source, 'package.json')) ? [source] : [];
    for (const dir of [...own, ...dependenciesOf(source)]) {
      let found: { name: string; entries: Record<string, string> };
      try { found = packageEntries(dir); } catch { continue; }
      if (!found.name || taken.has(found.name)) continue;
      taken.add(found.name);
      if (findPackage(found.name, configDir)) continue; // the project has its own copy
      Object.assign(alias, found.entries);
    }
  }
  return alias;
}
