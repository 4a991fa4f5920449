/**
 * Running `oryx.config.ts` fast: the file is compiled once per content (jiti's TypeScript
 * transform) into a module kept in the project's cache folder, named by a hash of the source
 * and the file's path. Its package imports then load through Node's own loader, as any
 * program's would, instead of being recompiled by jiti on every start (most of what an `oryx
 * agents` cost). Relative imports — the project's own TypeScript — still go through jiti.
 */
import { lstat, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadModule, moduleHooks } from './module-loader.ts';

/**
 * Bumped when the shape of a compiled module changes, so older cache files are not used. 2: the
 * key no longer holds the aliases (the compiled code never did; they are looked up per import).
 */
const FORMAT = 2;

/** What this needs of a jiti instance. */
export interface ConfigCompiler {
  transform(options: { source: string; filename: string; ts: boolean; async: boolean }): string;
  import(id: string): Promise<unknown>;
}

/** Where a bare import the project cannot resolve goes ({@link ImportAliases}). */
export interface Aliases {
  get(id: string): string | undefined;
}

interface Compiled {
  default(exports: Record<string, unknown>, module: { exports: Record<string, unknown> }, require: NodeJS.Require, filename: string, dirname: string, jitiImport: (id: string) => Promise<unknown>): Promise<void>;
  /** Node's resolution from the compiled file, which sits inside the project: the project's packages. */
  resolve(id: string): string;
}

/**
 * The config's default export (or its exports when it has none), compiled into `cacheDir` on
 * first use ({@link compileConfig}); undefined when it cannot be (a file that does not parse, a
 * folder that cannot be written, or `write: false` and not compiled yet): then jiti runs it as
 * before. `aliases` maps the bare imports the project cannot resolve to the installation's files.
 *
 * @example
 * await importConfigCached('/proj/oryx.config.ts', aliases, '/proj/node_modules/.cache/oryxos-config', () => createJiti(url))
 */
export async function importConfigCached(
  file: string, aliases: Aliases, cacheDir: string, jiti: () => Promise<ConfigCompiler>, options: { write?: boolean } = {},
): Promise<{ config: unknown } | undefined> {
  const compiled = await compileConfig(file, cacheDir, jiti, options);
  if (!compiled) return undefined;
  const mod = await import(pathToFileURL(compiled).href) as Compiled;
  const module = { exports: {} as Record<string, unknown> };
  await mod.default(module.exports, module, createRequire(file), file, path.dirname(file), importer(file, aliases, mod, jiti));
  return { config: 'default' in module.exports ? module.exports.default : module.exports };
}

/**
 * The compiled module of the config `file` in `cacheDir`, compiled and stored there first when it
 * is not yet: its path, or undefined when the file does not parse (jiti's own import then reports
 * it, line and column), the folder cannot be written, or `write: false` and it is not there (a
 * read-only command compiles nothing into the cache). Runs nothing of the config.
 *
 * @example
 * await compileConfig('/proj/oryx.config.ts', '/proj/.oryxos/cache', () => createJiti(url)); // '/proj/.oryxos/cache/config-3f0c….mjs'
 */
export async function compileConfig(
  file: string, cacheDir: string, jiti: () => Promise<ConfigCompiler>, options: { write?: boolean } = {},
): Promise<string | undefined> {
  const source = await readFile(file, 'utf8');
  const compiled = path.join(cacheDir, `config-${cacheKey(JSON.stringify([FORMAT, file, source]))}.mjs`);
  if (await usable(compiled)) return compiled;
  if (options.write === false) return undefined;
  const code = (await jiti()).transform({ source, filename: file, ts: true, async: true });
  if (code.includes('__JITI_ERROR__')) return undefined;
  const stored = await store(compiled, `// ${path.basename(file)}, compiled by oryx (jiti): a cache, safe to delete\n`
    + 'export const resolve = (id) => import.meta.resolve(id);\n'
    + `export default async function (exports, module, require, __filename, __dirname, jitiImport) {\n${code}\n}\n`);
  return stored ? compiled : undefined;
}

/**
 * 128 bits of a string as 32 hex digits: four 32-bit multiply-xor lanes, each with its own
 * multiplier, mixed at the end. A cache file name, not a security hash (whoever can write the
 * cache folder or the config runs code anyway): node:crypto would cost every start ~2 ms to load.
 *
 * @example
 * cacheKey('[1,"/p/oryx.config.ts","…",{}]'); // '3f0c…' (32 hex digits)
 */
export function cacheKey(text: string): string {
  const lanes = [0x811c9dc5, 0x050c5d1f, 0x2f3a8c17, 0x6b43a9b5];
  const primes = [0x01000193, 0x85ebca6b, 0xc2b2ae35, 0x27d4eb2f];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    for (let l = 0; l < 4; l++) lanes[l] = Math.imul(lanes[l]! ^ c, primes[l]!);
  }
  return lanes.map((h, l) => {
    h ^= lanes[(l + 1) % 4]! >>> 7;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return ((h ^ (h >>> 16)) >>> 0).toString(16).padStart(8, '0');
  }).join('');
}

/**
 * How the compiled config imports: a package through Node's loader (the project's copy, else the
 * installation's), anything else through jiti. A package comes back as its namespace marked
 * `__esModule`, the shape the compiled code's interop helpers expect of an ES module.
 */
function importer(file: string, aliases: Aliases, mod: Compiled, jiti: () => Promise<ConfigCompiler>) {
  const bare = (id: string) => !/^(\.{0,2}\/|[a-z][a-z0-9+.-]*:)/i.test(id);
  // `require` where Node can and no module hooks would be passed by (see loadModule).
  const sync = !moduleHooks();
  return async (id: string): Promise<unknown> => {
    let url: string | undefined;
    if (builtinModules.includes(id.replace(/^node:/, ''))) return { ...(await import(id) as Record<string, unknown>), __esModule: true };
    // An alias exists only for a package the project does not have, so Node's lookup from the
    // project would fail (and build its error) before the alias is used.
    if (bare(id)) {
      const aliased = aliases.get(id);
      try { url = aliased ? pathToFileURL(aliased).href : mod.resolve(id); } catch { url = undefined; }
    }
    if (!url || /\.[cm]?tsx?$/.test(url)) return (await jiti()).import(url ? fileURLToPath(url) : path.resolve(path.dirname(file), id));
    return { ...(await loadModule(url, sync)), __esModule: true };
  };
}

/** A cache file this user wrote and nobody else may change (like the config itself). */
async function usable(file: string): Promise<boolean> {
  const s = await lstat(file).catch(() => undefined);
  if (!s?.isFile()) return false;
  const uid = process.getuid?.();
  return (uid === undefined || s.uid === uid) && (s.mode & 0o022) === 0;
}

/** Writes through a temp file, so a concurrent start never reads half of it; false when the folder cannot be written. */
async function store(file: string, body: string): Promise<boolean> {
  try {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, body, { mode: 0o600 });
    await rename(temp, file);
    return true;
  } catch {
    return false;
  }
}
