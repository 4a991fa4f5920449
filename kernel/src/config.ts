import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type, type Type } from 'arktype';
import { settingsShape, type AgentSettingsInput } from './agents.ts';
import { OryxError, isOryxError } from './errors.ts';
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
  /**
   * Defaults for every agent's `settings:` (the run budget, loop detection, parallel tools…);
   * an agent's AGENT.md overrides them one by one.
   */
  settings?: AgentSettingsInput;
}

/** A config with paths resolved. */
export interface ResolvedConfig extends Required<Omit<OryxConfig, 'defaultProvider' | 'settings'>> {
  defaultProvider?: string;
  settings?: AgentSettingsInput;
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
  'provides?': 'string[]',
  setup: type.unknown.narrow((v, ctx) => typeof v === 'function' || ctx.mustBe('a function')),
});

const configShape = type({
  plugins: pluginShape.array(),
  'workspace?': 'string > 0',
  'defaultAgent?': 'string > 0',
  'defaultProvider?': 'string > 0',
  'settings?': settingsShape,
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
    ...(config.settings ? { settings: config.settings } : {}),
    root,
    workspaceDir: path.resolve(root, workspace),
    file,
  };
}

/**
 * A plugin's option error (`ORYX_E_<PLUGIN>_OPTIONS`: its factory's option check, or an
 * environment variable it validates) as the configuration error it is: `ORYX_E_CONFIG_INVALID`
 * naming the plugin and the option, the plugin's own code kept in `data.code`. Anything else
 * comes back as it was.
 *
 * @example
 * try { await kernel.start(); } catch (error) { throw asConfigError(error, 'oryx.config.ts'); }
 */
export function asConfigError(error: unknown, where = 'oryx.config.ts', pluginName?: string): unknown {
  const area = isOryxError(error) ? /^ORYX_E_([A-Z0-9]+)_OPTIONS$/.exec(error.code)?.[1] : undefined;
  if (!area || !isOryxError(error)) return error;
  const plugin = pluginName ?? area.toLowerCase();
  const option = typeof error.data?.field === 'string' ? error.data.field : undefined;
  return new OryxError('ORYX_E_CONFIG_INVALID', `${where}: ${error.message}`, {
    cause: error, hint: error.hint ?? `Fix the options of ${plugin}() in oryx.config.ts.`,
    data: { ...error.data, plugin, ...(option ? { option } : {}), code: error.code },
  });
}
