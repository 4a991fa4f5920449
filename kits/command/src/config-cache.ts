/**
 * Running `oryx.config.ts` fast, and only as its user wrote it. The file is compiled once per
 * content (jiti's TypeScript transform) into the user's cache folder, outside every project
 * (`~/.cache/oryxos/config/<config>/`), so its package imports load through Node's own loader
 * instead of jiti recompiling them at every start (most of what an `oryx agents` cost). Relative
 * imports — the project's own TypeScript — still go through jiti.
 *
 * A tool or a confined program writes inside a project, where nothing of this lives; and in case
 * the cache folder is writable to one anyway (a sandbox write root on `~/.cache`), each entry
 * carries an HMAC-SHA-256 over the config's path, its source and the compiled code, under a key
 * kept in the user's state folder (cache-key.ts). An entry is run only when its MAC checks
 * against the source read now, and what runs is the very text that was checked, compiled from
 * memory (never imported from the file, which could change in between). Anything else is
 * ignored: compiled again by a command that writes, run through jiti by one that only reads.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { KEY_FILE, cacheKeyBytes } from './cache-key.ts';
import { hmacSha256, sameDigest } from './hmac-sha256.ts';
import { loadModule, moduleHooks } from './module-loader.ts';
import { userDirs } from './user-dirs.ts';

/**
 * Bumped when the shape of a compiled entry changes, so older ones are not used. 3: entries live
 * in the user's cache folder with a MAC, and run from memory.
 */
const FORMAT = 3;

/** What this needs of a jiti instance. */
export interface ConfigCompiler {
  transform(options: { source: string; filename: string; ts: boolean; async: boolean }): string;
  import(id: string): Promise<unknown>;
}

/** Where a bare import goes: the project's own package, else the installation's ({@link ImportAliases}). */
export interface Aliases {
  /** The file the bare import `id` loads, or undefined when it cannot be told without jiti. */
  file(id: string): string | undefined;
}

/** Where the compiled configs and the key that authenticates them are kept. */
export interface CacheLocation {
  /** The folder of compiled configs: one subfolder per config file. */
  dir: string;
  /** The file holding the MAC key. */
  keyFile: string;
}

/**
 * This user's cache location ({@link userDirs}): `<cache>/config` and `<state>/config-cache.key`.
 *
 * @example
 * cacheLocation({ HOME: '/home/me' }); // { dir: '/home/me/.cache/oryxos/config', keyFile: '/home/me/.local/state/oryxos/config-cache.key' }
 */
export function cacheLocation(env: NodeJS.ProcessEnv = process.env): CacheLocation {
  const dirs = userDirs(env);
  return { dir: path.join(dirs.cache, 'config'), keyFile: path.join(dirs.state, KEY_FILE) };
}

type Body = (exports: Record<string, unknown>, module: { exports: Record<string, unknown> }, require: NodeJS.Require, filename: string, dirname: string,
  jitiImport: (id: string) => Promise<unknown>, jitiESMResolve: (id: string) => string) => Promise<void>;

/** Options of {@link importConfigCached} and {@link compileConfig}. */
export interface CacheOptions {
  /** False for a command that only reads: an entry already there is used, nothing is written (no entry, no key). */
  write?: boolean;
  /** Default {@link cacheLocation}(). */
  location?: CacheLocation;
}

/**
 * The config's default export (or its exports when it has none), run from its authenticated
 * entry in the cache ({@link compileConfig}); undefined when there is none to run (a file that
 * does not parse, a cache that cannot be written, or `write: false` and no valid entry): then
 * jiti runs the file as before.
 *
 * @example
 * await importConfigCached('/proj/oryx.config.ts', new ImportAliases('/proj', sources), () => createJiti(url))
 */
export async function importConfigCached(
  file: string, aliases: Aliases, jiti: () => Promise<ConfigCompiler>, options: CacheOptions = {},
): Promise<{ config: unknown } | undefined> {
  const compiled = await compileConfig(file, jiti, options);
  if (!compiled) return undefined;
  const body = new vm.Script(wrap(compiled.code), { filename: file }).runInThisContext() as Body;
  const module = { exports: {} as Record<string, unknown> };
  const load = importer(file, aliases, jiti);
  await body(module.exports, module, createRequire(file), file, path.dirname(file), load.import, load.resolve);
  return { config: 'default' in module.exports ? module.exports.default : module.exports };
}

/** The compiled code as one function: its first line stays line 1, so stack traces name the config's lines. */
const wrap = (code: string) => `(async function (exports, module, require, __filename, __dirname, jitiImport, jitiESMResolve) {${code}\n})`;

/**
 * The compiled code of the config `file`, checked against its MAC, compiled and stored in the
 * cache first when there is no valid entry (and `write` is not false). Undefined when the file
 * does not parse (jiti's own import then reports it, line and column), the cache or its key
 * cannot be written, or `write: false` and there is no valid entry. Runs nothing of the config.
 *
 * @example
 * await compileConfig('/proj/oryx.config.ts', () => createJiti(url)); // { entry: '~/.cache/oryxos/config/7c1e…/config-3f0c….js', code: '"use strict";…' }
 */
export async function compileConfig(
  file: string, jiti: () => Promise<ConfigCompiler>, options: CacheOptions = {},
): Promise<{ entry: string; code: string } | undefined> {
  const { dir, keyFile } = options.location ?? cacheLocation();
  const write = options.write !== false;
  const source = readFileSync(file, 'utf8');
  const folder = path.join(dir, cacheKey(file));
  const entry = path.join(folder, `config-${cacheKey(JSON.stringify([FORMAT, file, source]))}.js`);
  const key = await cacheKeyBytes(keyFile, write);
  if (!key) return undefined;
  let stored: string | undefined;
  try { stored = readFileSync(entry, 'utf8'); } catch { stored = undefined; }
  const found = stored === undefined ? undefined : checked(stored, key, file, source);
  if (found !== undefined) return { entry, code: found };
  if (!write) return undefined;
  const code = (await jiti()).transform({ source, filename: file, ts: true, async: true });
  if (code.includes('__JITI_ERROR__')) return undefined;
  const text = `// ${path.basename(file)} (${file}), compiled by oryx with jiti: a cache, safe to delete. Run only when its MAC checks.\n`
    + `// mac ${hmacSha256(key, macInput(file, source, code))}\n${code}`;
  return await store(folder, entry, text) ? { entry, code } : undefined;
}

/** What the MAC covers: the format, the config's path and source, and the compiled code. */
const macInput = (file: string, source: string, code: string) => `oryx config cache ${FORMAT}\0${file}\0${source}\0${code}`;

/** The code of an entry whose MAC checks for this file and source; undefined for any other entry. */
function checked(text: string, key: Uint8Array, file: string, source: string): string | undefined {
  const first = text.indexOf('\n');
  const second = text.indexOf('\n', first + 1);
  const mac = /^\/\/ mac ([0-9a-f]{64})$/.exec(text.slice(first + 1, second))?.[1];
  if (first < 0 || second < 0 || !mac) return undefined;
  const code = text.slice(second + 1);
  return sameDigest(hmacSha256(key, macInput(file, source, code)), mac) ? code : undefined;
}

/**
 * 128 bits of a string as 32 hex digits: four 32-bit multiply-xor lanes, each with its own
 * multiplier, mixed at the end. A file name, not a security hash: what authenticates an entry is
 * its MAC.
 *
 * @example
 * cacheKey('[3,"/p/oryx.config.ts","…"]'); // '3f0c…' (32 hex digits)
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
function importer(file: string, aliases: Aliases, jiti: () => Promise<ConfigCompiler>) {
  const dir = path.dirname(file);
  const bare = (id: string) => !/^(\.{0,2}\/|[a-z][a-z0-9+.-]*:)/i.test(id);
  // `require` where Node can and no module hooks would be passed by (see loadModule).
  const sync = !moduleHooks();
  const fileOf = (id: string) => (bare(id) ? aliases.file(id) : /^file:/i.test(id) ? fileURLToPath(id) : path.resolve(dir, id));
  return {
    async import(id: string): Promise<unknown> {
      if (builtinModules.includes(id.replace(/^node:/, ''))) return { ...(await import(id) as Record<string, unknown>), __esModule: true };
      const found = fileOf(id);
      if (!found || /\.[cm]?tsx?$/.test(found)) return (await jiti()).import(found ?? id);
      return { ...(await loadModule(pathToFileURL(found).href, sync)), __esModule: true };
    },
    // `import.meta.resolve(id)` in the config (jiti turns it into this).
    resolve(id: string): string {
      if (builtinModules.includes(id.replace(/^node:/, ''))) return id.startsWith('node:') ? id : `node:${id}`;
      const found = fileOf(id);
      if (!found) throw Object.assign(new Error(`Cannot find package '${id}' imported from ${file}`), { code: 'ERR_MODULE_NOT_FOUND' });
      return pathToFileURL(found).href;
    },
  };
}

/**
 * Writes through a temp file, so a concurrent start never reads half of it, and removes the
 * config's older entries; false when the folder cannot be written.
 */
async function store(folder: string, entry: string, body: string): Promise<boolean> {
  try {
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const temp = `${entry}.${process.pid}.tmp`;
    await writeFile(temp, body, { mode: 0o600 });
    await rename(temp, entry);
  } catch {
    return false;
  }
  for (const name of await readdir(folder).catch(() => [])) {
    if (name !== path.basename(entry) && !name.endsWith('.tmp')) await rm(path.join(folder, name), { force: true }).catch(() => {});
  }
  await forgetGone(path.dirname(folder));
  return true;
}

/**
 * Removes the folders of configs that no longer exist (a throwaway project deleted), so the cache
 * does not grow with every project ever run. Only when an entry was written (a config compiled,
 * which jiti makes slow anyway), never on a plain start. An entry's first line names its config.
 */
async function forgetGone(dir: string): Promise<void> {
  for (const folder of await readdir(dir).catch(() => [])) {
    const at = path.join(dir, folder);
    const [name] = await readdir(at).catch(() => []);
    if (!name) continue;
    const head = (await readFile(path.join(at, name), 'utf8').catch(() => '')).slice(0, 4096).split('\n', 1)[0]!;
    const config = /^\/\/ \S+ \((.+)\), compiled by oryx/.exec(head)?.[1];
    if (config && path.isAbsolute(config) && !existsSync(config)) await rm(at, { recursive: true, force: true }).catch(() => {});
  }
}
