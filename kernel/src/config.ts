import { readFileSync } from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type, type Type } from 'arktype';
import { OryxError, errorMessage, isOryxError } from './errors.ts';
import type { Plugin } from './plugin.ts';
import { didYouMean, knownKeysAt, lineOfKey } from './suggest.ts';

const readFileSafe = (file: string): string => { try { return readFileSync(file, 'utf8'); } catch { return ''; } };

/** What `oryx.config.ts` exports (through {@link defineConfig}). */
export interface OryxConfig {
  /** The plugins to enable, each the result of its factory: `[sqlite(), audit()]`. */
  plugins: Plugin[];
  /** The workspace folder, relative to the config file. Default `.oryxos`. */
  workspace?: string;
  /** The agent `oryx run` uses without `--agent`. Default `assistant`. */
  defaultAgent?: string;
  /** The provider for agents whose AGENT.md names none. */
  defaultProvider?: string;
}

/** A config with paths resolved. */
export interface ResolvedConfig extends Required<Omit<OryxConfig, 'defaultProvider'>> {
  defaultProvider?: string;
  /** The folder the config file is in (or the working directory without one). */
  root: string;
  /** Absolute path of the workspace folder. */
  workspaceDir: string;
  /** The config file, when there is one. */
  file?: string;
}

const pluginShape = type({
  name: 'string > 0',
  version: 'string > 0',
  kernel: 'string > 0',
  'requires?': 'string[]',
  setup: type.unknown.narrow((v, ctx) => typeof v === 'function' || ctx.mustBe('a function')),
});

const configShape = type({
  plugins: pluginShape.array(),
  'workspace?': 'string > 0',
  'defaultAgent?': 'string > 0',
  'defaultProvider?': 'string > 0',
  '+': 'reject',
});

/**
 * Types a config object; the default export of `oryx.config.ts`.
 *
 * @example
 * import { defineConfig } from '@oryxos/kernel';
 * import sqlite from '@oryxos/plugin-sqlite';
 * export default defineConfig({ plugins: [sqlite()] });
 */
export function defineConfig(config: OryxConfig): OryxConfig {
  return config;
}

/**
 * Factory options as a plugin validates them: an entry given as `undefined` counts as not set
 * (`apiKey: process.env.X` with X unset), and no options at all as `{}`. Anything that is not
 * a plain object passes through, for the schema to reject.
 *
 * @example
 * const result = schema(definedOptions(options));
 */
export function definedOptions(options: unknown): unknown {
  if (!options || typeof options !== 'object' || Array.isArray(options)) return options ?? {};
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}

/** Who a {@link validateOptions} error is about: the factory name, its error code, an example call. */
export interface OptionsSpec {
  /** The factory name, also the package suffix: `sqlite` for `sqlite()` in `@oryxos/plugin-sqlite`. */
  plugin: string;
  /** The plugin's `ORYX_E_<PLUGIN>_OPTIONS` code. */
  code: string;
  /** A valid call, shown when the options are not an object: `sqlite({ url: "file:x.db" })`. */
  example: string;
}

/**
 * Validates a plugin factory's options at once: applies {@link definedOptions}, runs the
 * schema and returns its value, or throws `spec.code` naming the first bad field (dotted path,
 * or `(options)` for the whole value) in the message, the hint and `data.field`. An unknown
 * top-level key also lists the known ones, since that is most often a typo.
 *
 * @example
 * const shape = type({ 'busyTimeoutMs?': 'number.integer >= 0', '+': 'reject' });
 * const o = validateOptions(shape, options, { plugin: 'sqlite', code: 'ORYX_E_SQLITE_OPTIONS', example: 'sqlite({ busyTimeoutMs: 5000 })' });
 * // sqlite({ busyTimeoutMs: -1 }) throws: sqlite(): option busyTimeoutMs must be non-negative (was -1)
 */
export function validateOptions<T>(schema: Type<T>, options: unknown, spec: OptionsSpec): T {
  const result = schema(definedOptions(options));
  if (!(result instanceof type.errors)) return result as T;
  const first = result[0];
  const field = first?.path.length ? first.path.join('.') : '(options)';
  const whole = field === '(options)';
  // arktype starts a message with the path in its own notation (a[0].b); the dotted field replaces it.
  const problem = first ? first.message.replace(/^.*? must/, 'must') : result.summary;
  throw new OryxError(spec.code, `${spec.plugin}(): ${whole ? 'options' : `option ${field}`} ${problem}${unknownKeyNote(schema, first)}`, {
    hint: whole
      ? `Call ${spec.plugin}() with an options object, e.g. ${spec.example}.`
      : `Fix ${field} in ${spec.plugin}({...}) in oryx.config.ts; see the option table in the @oryxos/plugin-${spec.plugin} README.`,
    data: { field },
  });
}

/** For an unknown key (most often a typo): the closest known key and the known ones at that level. */
function unknownKeyNote(schema: Type<unknown>, error: { problem: string; path: readonly PropertyKey[] } | undefined): string {
  if (!error || error.problem !== 'must be removed' || !error.path.length) return '';
  const path = error.path.map((k) => (typeof k === 'number' ? k : String(k)));
  const keys = knownKeysAt((schema as { json?: unknown }).json, path.slice(0, -1));
  if (!keys.length) return '';
  return `${didYouMean(String(path.at(-1)), keys)} (known ${path.length > 1 ? `keys of ${path.slice(0, -1).join('.')}` : 'options'}: ${keys.join(', ')})`;
}

/** Validates a config object; the error names the field. */
export function resolveConfig(raw: unknown, root: string, file?: string): ResolvedConfig {
  const where = file ? path.relative(process.cwd(), file) || file : 'config';
  const candidate = raw && typeof raw === 'object' && 'default' in raw && !('plugins' in raw) ? (raw as { default: unknown }).default : raw;
  // An option left undefined (defaultProvider: process.env.X) means "not set".
  const result = configShape(definedOptions(candidate));
  if (result instanceof type.errors) {
    const first = result[0];
    const field = first?.path?.length ? first.path.join('.') : '(root)';
    if (first?.problem === 'must be removed' && first.path.length === 1) {
      const key = String(first.path[0]);
      const line = file ? lineOfKey(readFileSafe(file), key) : undefined;
      throw new OryxError('ORYX_E_CONFIG_INVALID', `${where}${line ? `:${line}` : ''}: unknown key "${key}"${unknownKeyNote(configShape, first)}`, {
        hint: 'Fix or remove that key in defineConfig({...}); see the README for the config format.',
        data: { field, line },
      });
    }
    throw new OryxError('ORYX_E_CONFIG_INVALID', `${where}: ${field} ${first ? first.message.replace(/^.*? must/, 'must') : result.summary}`, {
      hint: field.startsWith('plugins')
        ? 'Each plugin entry must be the object a plugin factory returns, e.g. plugins: [sqlite()].'
        : 'Fix that field in oryx.config.ts; see the README for the config format.',
      data: { field, summary: result.summary },
    });
  }
  const config = candidate as OryxConfig;
  const workspace = config.workspace ?? '.oryxos';
  return {
    plugins: config.plugins,
    workspace,
    defaultAgent: config.defaultAgent ?? 'assistant',
    defaultProvider: config.defaultProvider,
    root,
    workspaceDir: path.resolve(root, workspace),
    file,
  };
}

/** The names a config file may have, in the order they are looked for in one folder. */
export const CONFIG_FILE_NAMES = ['oryx.config.ts', 'oryx.config.mts', 'oryx.config.js', 'oryx.config.mjs'] as const;

/** A folder holding one of these is a project folder: the search for a config stops there. */
const PROJECT_MARKERS = ['.oryxos', 'package.json', '.git'];

const exists = (p: string) => lstat(p).then(() => true, () => false);

/**
 * The config file for `cwd`: `oryx.config.{ts,mts,js,mjs}` in the working folder or its
 * parents, up to the first folder that holds `.oryxos/`, a `package.json` or `.git` (the
 * project folder). Nothing else is looked at: no `.config/` meta config, no user-level config
 * folder, no folder above the project. Returns undefined when there is none.
 *
 * @example
 * await findConfigFile('/proj/src/lib') // '/proj/oryx.config.ts' when /proj holds it (and package.json)
 */
export async function findConfigFile(cwd: string): Promise<string | undefined> {
  let dir = path.resolve(cwd);
  for (;;) {
    for (const name of CONFIG_FILE_NAMES) {
      const candidate = path.join(dir, name);
      if (await stat(candidate).then((s) => s.isFile(), () => false)) return candidate;
    }
    for (const marker of PROJECT_MARKERS) if (await exists(path.join(dir, marker))) return undefined;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
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

/** Runs a config file: TypeScript through jiti, JavaScript through import(). */
async function importConfig(file: string): Promise<unknown> {
  if (/\.m?ts$/.test(file)) {
    const { createJiti } = await import('jiti');
    // The transpile cache goes next to the project's dependencies (a folder the sandbox
    // protects), never to a shared temp folder where another user could plant a cached file.
    const modules = path.join(path.dirname(file), 'node_modules');
    const fsCache = (await exists(modules)) ? path.join(modules, '.cache', 'oryxos-config') : false;
    const jiti = createJiti(pathToFileURL(file).href, { fsCache, interopDefault: true });
    return jiti.import(file, { default: true });
  }
  const mod = await import(pathToFileURL(file).href) as { default?: unknown };
  return mod.default ?? mod;
}

/**
 * Finds the config file from `cwd` (see {@link findConfigFile}), or takes the one given
 * (`--config`, `ORYX_CONFIG`), checks that it is the user's own ({@link assertConfigIsYours}),
 * runs it and validates it. Returns undefined when there is no config file at all.
 */
export async function loadConfig(options: { cwd?: string; file?: string } = {}): Promise<ResolvedConfig | undefined> {
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
  let raw: unknown;
  try {
    raw = await importConfig(file);
  } catch (error) {
    if (isOryxError(error)) throw error;
    throw new OryxError('ORYX_E_CONFIG_LOAD', `Could not load ${path.relative(cwd, file) || file}: ${errorMessage(error)}`, {
      cause: error,
      hint: 'Fix the error in the config file; the plugins it imports must be installed (npm install).',
    });
  }
  return resolveConfig(raw, path.dirname(file), file);
}
