/**
 * Finding, vetting and running `oryx.config.ts` for the `oryx` CLI. The kernel validates a
 * config object; finding the file on disk, refusing one another user could have written, and
 * resolving what it imports (the project's own packages first, then this OryxOS installation,
 * then the plugins installed with `oryx plugins install`) is the host's job.
 */
import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { OryxError, errorMessage, isOryxError } from '@oryxos/provider-spec';
import { asConfigError, resolveConfig, type ResolvedConfig } from '@oryxos/kernel';
import { compileConfig, importConfigCached } from './config-cache.ts';
import { ImportAliases } from './config-imports.ts';

/** The names a config file may have, in the order they are looked for in one folder. */
export const CONFIG_FILE_NAMES = ['oryx.config.ts', 'oryx.config.mts', 'oryx.config.js', 'oryx.config.mjs'] as const;

/** A folder holding one of these is a project folder: the search for a config stops there. */
const PROJECT_MARKERS = ['.oryxos', 'package.json', '.git'];

const exists = (p: string) => lstat(p).then(() => true, () => false);

/** The config files in `dir`, in {@link CONFIG_FILE_NAMES} order. */
async function configsIn(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of CONFIG_FILE_NAMES) {
    const candidate = path.join(dir, name);
    if (await stat(candidate).then((s) => s.isFile(), () => false)) found.push(candidate);
  }
  return found;
}

const isProject = async (dir: string) => {
  for (const marker of PROJECT_MARKERS) if (await exists(path.join(dir, marker))) return true;
  return false;
};

/**
 * The config file for `cwd`: `oryx.config.{ts,mts,js,mjs}` in the working folder or its
 * parents, up to the first folder that holds `.oryxos/`, a `package.json` or `.git` (the
 * project folder). Nothing else is looked at: no `.config/` meta config, no user-level config
 * folder, no folder above the project. Returns undefined when there is none.
 *
 * Refused, so that none of them runs: two config files in one folder (`ORYX_E_CONFIG_AMBIGUOUS`:
 * one may have been written beside yours), and a config in a folder that is no project of its
 * own (none of the markers above) below a folder that holds a config, up to the project folder
 * (`ORYX_E_CONFIG_NESTED`: a folder of a project, where the project's agents may write).
 * `--config` names the one to run instead.
 *
 * @example
 * await findConfigFile('/proj/src/lib') // '/proj/oryx.config.ts' when /proj holds it (and package.json)
 */
export async function findConfigFile(cwd: string): Promise<string | undefined> {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const found = await configsIn(dir);
    if (found.length > 1) throw ambiguous(dir, found);
    if (found.length === 1) {
      await assertNotNested(found[0]!);
      return found[0];
    }
    if (await isProject(dir) || path.dirname(dir) === dir) return undefined;
  }
}

function ambiguous(dir: string, found: string[]): OryxError {
  const names = found.map((f) => path.basename(f));
  return new OryxError('ORYX_E_CONFIG_AMBIGUOUS', `${dir} holds ${found.length} config files (${names.join(', ')}), so oryx runs none of them`, {
    hint: `Keep the one you wrote and delete the others, or name it with --config (or ORYX_CONFIG), e.g. --config ${found.at(-1)}. `
      + 'A config file you did not write may have been put there by an agent or a program: read it before you run it.',
    data: { dir, files: found },
  });
}

/** Throws ORYX_E_CONFIG_NESTED when `file` is in a plain folder of a project whose own config is further up. */
async function assertNotNested(file: string): Promise<void> {
  const dir = path.dirname(file);
  if (await isProject(dir)) return;
  for (let up = path.dirname(dir); ; up = path.dirname(up)) {
    const outer = await configsIn(up);
    if (outer.length) {
      throw new OryxError('ORYX_E_CONFIG_NESTED', `${file} is in a folder of the project ${up} (config ${outer.map((f) => path.basename(f)).join(', ')}), `
        + 'and that folder is no project of its own (no .oryxos, package.json or .git), so oryx runs neither', {
        hint: `Run oryx from ${up} for that project's config, or name the one you mean with --config (or ORYX_CONFIG). `
          + `If ${dir} is a project of its own, give it a workspace (oryx init --dir ${dir}, or mkdir ${path.join(dir, '.oryxos')}). `
          + 'The project\'s agents may write in its folders: read a config file you did not write before you run it.',
        data: { file, project: up, projectConfig: outer },
      });
    }
    if (await isProject(up) || path.dirname(up) === up) return;
  }
}

/**
 * Refuses a config file another user could have written: one owned by another user (root
 * excepted), writable by everyone, or in a folder that is owned by another user or writable by
 * everyone (`/tmp`, even with its sticky bit). The config runs as code with the user's rights,
 * so only a file the user controls may run. POSIX only; elsewhere it passes. `uid` is the user
 * the file must belong to (default: this process's).
 *
 * @example
 * await assertConfigIsYours('/tmp/oryx.config.ts') // throws ORYX_E_CONFIG_UNSAFE
 */
export async function assertConfigIsYours(file: string, uid = process.getuid?.()): Promise<void> {
  if (uid === undefined) return;
  const foreign = (owner: number) => owner !== uid && owner !== 0;
  const refuse = (why: string) => new OryxError('ORYX_E_CONFIG_UNSAFE', `Refusing to run the config file ${file}: ${why}`, {
    hint: 'A config file runs as code with your rights, so it must be yours, in a folder only you (or root) can write to. '
      + 'Move it into your project folder, or fix the owner (chown) or the mode (chmod o-w), then name it with --config.',
    data: { file },
  });
  const real = await realpath(file);
  const s = await stat(real);
  if (foreign(s.uid)) throw refuse(`it is owned by another user (uid ${s.uid})`);
  if (s.mode & 0o002) throw refuse('every user may write to it');
  for (const dir of new Set([path.dirname(path.resolve(file)), path.dirname(real)])) {
    const d = await stat(dir);
    if (d.mode & 0o002) throw refuse(`its folder ${dir} is writable by every user`);
    if (foreign(d.uid)) throw refuse(`its folder ${dir} is owned by another user (uid ${d.uid})`);
  }
}

/** A jiti for `file`, made at the first call (loading jiti costs ~100 ms). It keeps no cache on disk: what it would write, nothing would authenticate. */
function jitiFor(file: string, alias: () => Record<string, string> = () => ({})) {
  let jiti: ReturnType<typeof import('jiti').createJiti> | undefined;
  return async () => {
    const { createJiti } = await import('jiti');
    return jiti ??= createJiti(pathToFileURL(file).href, { interopDefault: true, fsCache: false, alias: alias() });
  };
}

/**
 * Runs a config file (TypeScript or JavaScript): compiled once per content into the user's
 * cache ({@link importConfigCached}), else through jiti. A bare import the project cannot
 * resolve is looked up in `resolveFrom`, in order ({@link ImportAliases}).
 */
async function importConfig(file: string, resolveFrom: readonly string[], readOnly = false): Promise<unknown> {
  const aliases = new ImportAliases(path.dirname(file), resolveFrom);
  const compiler = jitiFor(file, () => aliases.all());
  const cached = await importConfigCached(file, aliases, compiler, { write: !readOnly });
  return cached ? cached.config : (await compiler()).import(file, { default: true });
}

/**
 * Compiles the config `file` into the user's cache without running it, so that the commands
 * after it start from the cache, the read-only ones (`oryx agents`, `tools`, `doctor`) too, which
 * never write it. `oryx init` calls it for the config it writes. False when it could not (a file
 * that does not parse, a cache folder or key that cannot be written).
 *
 * @example
 * await precompileConfig('/home/me/proj/oryx.config.ts'); // true
 */
export async function precompileConfig(file: string): Promise<boolean> {
  return (await compileConfig(file, jitiFor(file))) !== undefined;
}

/** Where {@link loadConfig} looks and what it may import from. */
export interface LoadConfigOptions {
  /** The working folder the search starts from. Default `process.cwd()`. */
  cwd?: string;
  /** A config file named by the user (`--config`, `ORYX_CONFIG`), relative to `cwd`. */
  file?: string;
  /**
   * Package folders, in order, that a bare import the project cannot resolve is looked up in:
   * the OryxOS installation, then the plugins installed with `oryx plugins install`.
   */
  resolveFrom?: readonly string[];
  /**
   * For a command that only reads: a compiled config already in the cache is used, but nothing
   * is written (no cache entry, no key).
   */
  readOnly?: boolean;
  /** Called with the config file once found and checked, before it runs (`.env` loading). */
  beforeImport?(file: string): Promise<void>;
}

/**
 * Finds the config file from `cwd` (see {@link findConfigFile}), or takes the one given
 * (`--config`, `ORYX_CONFIG`), checks that it is the user's own ({@link assertConfigIsYours}),
 * runs it and validates it. Returns undefined when there is no config file at all. A plugin's
 * option error is `ORYX_E_CONFIG_INVALID` naming the plugin and the option; anything else the
 * file throws is `ORYX_E_CONFIG_LOAD`.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<ResolvedConfig | undefined> {
  const cwd = options.cwd ?? process.cwd();
  let file: string | undefined;
  if (options.file) {
    file = path.resolve(cwd, options.file);
    if (!(await stat(file).then((s) => s.isFile(), () => false))) {
      throw new OryxError('ORYX_E_CONFIG_NOT_FOUND', `Config file not found: ${options.file}`, {
        hint: 'Check the --config path (or ORYX_CONFIG), or run `oryx init` to create oryx.config.ts.',
      });
    }
  } else {
    file = await findConfigFile(cwd);
    if (!file) return undefined;
  }
  await assertConfigIsYours(file);
  await options.beforeImport?.(file);
  let raw: unknown;
  const where = path.relative(cwd, file) || file;
  try {
    raw = await importConfig(file, options.resolveFrom ?? [], options.readOnly);
  } catch (error) {
    if (isOryxError(error)) throw asConfigError(error, where);
    const missing = (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' || /Cannot find (module|package)/.test(errorMessage(error));
    throw new OryxError('ORYX_E_CONFIG_LOAD', `Could not load ${where}: ${errorMessage(error)}`, {
      cause: error,
      hint: missing
        ? 'A package the config imports is not installed: install it in the project (npm install), or as an OryxOS plugin (oryx plugins install NAME).'
        : 'Fix the error the message names in the config file.',
    });
  }
  return resolveConfig(raw, path.dirname(file), file);
}
