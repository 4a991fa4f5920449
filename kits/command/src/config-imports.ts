/**
 * What a bare import in `oryx.config.ts` resolves to when the project does not have the
 * package: the OryxOS installation's copy (`@oryxos/plugin-sqlite` with a global install),
 * then a plugin installed with `oryx plugins install`. The project's own packages always win,
 * so a project can pin another version of any of them.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

type Exports = string | null | { [key: string]: Exports } | Exports[];

/**
 * The conditions Node's `import` matches in a package's `exports` (plus `default`): `node`,
 * `import`, and `module-sync` where Node can `require` ES modules.
 */
const CONDITIONS = new Set(['node', 'import', ...(process.features.require_module ? ['module-sync'] : []), 'default']);

/**
 * The file an export target resolves to, as Node reads it: the first key of a conditions object
 * (in the package's order) that is one of {@link CONDITIONS} and resolves, the first entry of an
 * array that does, `null` for none.
 */
function target(value: Exports): string | undefined {
  if (typeof value === 'string') return value;
  if (!value) return undefined;
  if (Array.isArray(value)) return value.map(target).find(Boolean);
  for (const [condition, inner] of Object.entries(value)) {
    if (!CONDITIONS.has(condition)) continue;
    const found = target(inner);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Every import path a package offers (`name`, `name/testing`, …, no `*` patterns) mapped to
 * its file, from the package's `exports` (or `main`).
 */
export function packageEntries(dir: string): { name: string; entries: Record<string, string>; exports: boolean } {
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string; exports?: Exports; main?: string };
  const exported = pkg.exports;
  const subpaths: Record<string, Exports> = exported === undefined ? { '.': legacyMain(dir, pkg.main) ?? null }
    : typeof exported === 'string' || Array.isArray(exported) || !Object.keys(exported ?? {}).some((k) => k.startsWith('.'))
      ? { '.': exported }
      : exported as Record<string, Exports>;
  const entries: Record<string, string> = {};
  for (const [sub, value] of Object.entries(subpaths)) {
    const file = target(value);
    // Patterns and folder mappings (`./lib/`) are left to jiti; a target must be there.
    if (sub.includes('*') || sub.endsWith('/') || !file || file.endsWith('/') || sub.endsWith('package.json') || !existsSync(path.resolve(dir, file))) continue;
    entries[pkg.name + sub.slice(1)] = path.resolve(dir, file);
  }
  return { name: pkg.name, entries, exports: exported !== undefined };
}

// No exception for a missing file: building one costs more than the stat (a package has many entries).
const isFile = (file: string) => statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;

/**
 * The file a package without `exports` loads, as Node's import finds it: `main`, `main` with
 * `.js`, `.json` or `.node`, `main/index.js` (…), else `index.js` (…).
 */
function legacyMain(dir: string, main: string | undefined): string | undefined {
  const candidates = main ? [main, `${main}.js`, `${main}.json`, `${main}.node`, `${main}/index.js`, `${main}/index.json`, `${main}/index.node`] : [];
  return [...candidates, 'index.js', 'index.json', 'index.node'].find((f) => isFile(path.resolve(dir, f)));
}

/** The package a bare import names: `@scope/name` or `name`. */
const packageName = (id: string) => (id.startsWith('@') ? id.split('/').slice(0, 2).join('/') : id.split('/')[0]!);

/** The folder of package `name` as Node would find it from `dir` (its node_modules and those above). */
export function findPackage(name: string, dir: string): string | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    const candidate = path.join(d, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return realpathSync.native(candidate);
    if (path.dirname(d) === d) return undefined;
  }
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
  return new ImportAliases(configDir, sources).all();
}

/**
 * The aliases of {@link importAliases}, one import at a time: `get(id)` looks for the package
 * `id` names only (a few file checks), where the whole map reads the package.json of every
 * dependency of every source (~3 ms, which every command paid).
 *
 * @example
 * const aliases = new ImportAliases('/home/me/proj', ['/usr/lib/node_modules/@oryxos/cli']);
 * aliases.get('@oryxos/kernel'); // '/usr/lib/node_modules/@oryxos/cli/node_modules/@oryxos/kernel/dist/index.js'
 * aliases.get('left-pad');       // undefined: the project has it, or no source offers it
 */
export class ImportAliases {
  private readonly packages = new Map<string, Record<string, string> | undefined>();
  /** The project's own packages' import paths (undefined: the project does not have the package). */
  private readonly own = new Map<string, { dir: string; entries: Record<string, string>; exports: boolean } | undefined>();
  private readonly dirs = new Map<string, string | undefined>();
  private readonly manifests = new Map<string, { name?: string; dependencies?: Record<string, string> } | undefined>();

  constructor(readonly configDir: string, readonly sources: readonly string[]) {}

  /** The installation's file for the bare import `id`, when the project cannot resolve its package. */
  get(id: string): string | undefined {
    return this.entries(packageName(id))?.[id];
  }

  /**
   * The file the bare import `id` loads: from the project's own copy of its package when the
   * project has one, else the alias; undefined when neither offers it plainly (a `*` pattern, a
   * package nobody has), for jiti to resolve.
   */
  file(id: string): string | undefined {
    const name = packageName(id);
    if (!this.own.has(name)) {
      const dir = this.ownDir(name);
      let found: ReturnType<typeof packageEntries> | undefined;
      try { found = dir ? packageEntries(dir) : undefined; } catch { found = undefined; }
      this.own.set(name, dir ? { dir, entries: found?.entries ?? {}, exports: found?.exports ?? true } : undefined);
    }
    const own = this.own.get(name);
    if (!own) return this.get(id);
    if (own.entries[id] || own.exports || id === name) return own.entries[id];
    // No `exports`: any file of the package may be imported by its path.
    const deep = path.join(own.dir, id.slice(name.length + 1));
    return isFile(deep) ? deep : undefined;
  }

  /** The import paths of package `name` and their files, from the first source that has it; none when the project has its own. */
  private entries(name: string): Record<string, string> | undefined {
    if (!this.packages.has(name)) this.packages.set(name, this.lookup(name));
    return this.packages.get(name);
  }

  /** Every alias at once (jiti's option): each package a source is or depends on. */
  all(): Record<string, string> {
    const names = new Set<string>();
    for (const source of this.sources) {
      const manifest = this.manifest(source);
      if (manifest?.name) names.add(manifest.name);
      for (const name of Object.keys(manifest?.dependencies ?? {})) names.add(name);
    }
    const alias: Record<string, string> = {};
    for (const name of names) Object.assign(alias, this.entries(name));
    return alias;
  }

  /** The project's own copy of package `name` (its folder), looked up once. */
  private ownDir(name: string): string | undefined {
    if (!this.dirs.has(name)) this.dirs.set(name, findPackage(name, this.configDir));
    return this.dirs.get(name);
  }

  private lookup(name: string): Record<string, string> | undefined {
    if (this.ownDir(name)) return undefined; // the project has its own copy
    for (const source of this.sources) {
      const manifest = this.manifest(source);
      const dir = manifest?.name === name ? source : manifest?.dependencies?.[name] !== undefined ? findPackage(name, source) : undefined;
      if (!dir) continue;
      try {
        const found = packageEntries(dir);
        if (found.name === name) return found.entries;
      } catch {
        // an unreadable package.json: the next source may have it
      }
    }
    return undefined;
  }

  private manifest(source: string) {
    if (!this.manifests.has(source)) {
      let pkg: { name?: string; dependencies?: Record<string, string> } | undefined;
      try { pkg = JSON.parse(readFileSync(path.join(source, 'package.json'), 'utf8')); } catch { pkg = undefined; }
      this.manifests.set(source, pkg);
    }
    return this.manifests.get(source);
  }
}
