import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Type } from 'arktype';
import { settingsShape, type AgentSettingsInput } from './agents.ts';
import { OryxError, isOryxError } from './errors.ts';
import type { Plugin } from './plugin.ts';
import { isShape, shape as s, type Shape, type ShapeIssue } from '@oryxos/schema-kit';
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

const nonEmpty = s.string({ min: 1 });
const pluginShape = s.object({
  name: nonEmpty,
  version: nonEmpty,
  kernel: nonEmpty,
  requires: s.array(s.string()).optional(),
  provides: s.array(s.string()).optional(),
  setup: s.custom('a function', (v) => typeof v === 'function'),
}, { unknownKeys: 'ignore' });

const configShape = s.object({
  plugins: s.array(pluginShape),
  workspace: nonEmpty.optional(),
  defaultAgent: nonEmpty.optional(),
  defaultProvider: nonEmpty.optional(),
  settings: settingsShape.optional(),
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
 * An arktype type, as {@link validateOptions} still takes one (third-party plugins, the
 * `oryx plugins new` templates): called with the value, it returns the value or its errors.
 * The kernel never imports arktype; it reads the result by its shape.
 */
export type ArkTypeLike<T> = Pick<Type<T>, 'infer' | 'json'> & ((data: unknown) => unknown);

/** An arktype result that is its errors (an `ArkErrors` array), read without importing arktype. */
interface ArkErrorsLike extends ReadonlyArray<{ path: readonly PropertyKey[]; problem: string; message: string }> { summary: string }
const isArkErrors = (result: unknown): result is ArkErrorsLike =>
  Array.isArray(result) && (result as unknown as Record<string, unknown>)[' arkKind'] === 'errors';

/**
 * The first problem of `value` against a shape ({@link shape}) or an arktype type, in one form:
 * its path, the problem after the field name (`must be positive (was 0)`), and for an unknown
 * key (`must be removed`) the keys known at that level.
 */
function firstIssue(schema: Shape<unknown> | ArkTypeLike<unknown>, value: unknown): ShapeIssue | undefined {
  if (isShape(schema)) return s.check(schema, value);
  const result = schema(value);
  if (!isArkErrors(result)) return undefined;
  const first = result[0];
  if (!first) return { path: [], problem: result.summary };
  // Array.from: arktype's path is an Array subclass whose map() builds a wrong one.
  const path = Array.from(first.path, (k) => (typeof k === 'number' ? k : String(k)));
  // arktype starts a message with the path in its own notation (a[0].b); the dotted field replaces it.
  const problem = first.message.replace(/^.*? must/, 'must');
  if (first.problem !== 'must be removed' || !path.length) return { path, problem };
  return { path, problem, known: knownKeysAt(schema.json, path.slice(0, -1)) };
}

/**
 * Validates a plugin factory's options at once: applies {@link definedOptions}, checks them
 * against a shape ({@link shape}; an arktype type works too) and returns them, or throws
 * `spec.code` naming the first bad field (dotted path, or `(options)` for the whole value) in
 * the message, the hint and `data.field`. An unknown key also lists the known ones at its
 * level, with the closest one, since that is most often a typo.
 *
 * @example
 * const options = s.object({ busyTimeoutMs: s.integer({ min: 0 }).optional() });
 * const o = validateOptions(options, raw, { plugin: 'sqlite', code: 'ORYX_E_SQLITE_OPTIONS', example: 'sqlite({ busyTimeoutMs: 5000 })' });
 * // sqlite({ busyTimeoutMs: -1 }) throws: sqlite(): option busyTimeoutMs must be non-negative (was -1)
 */
export function validateOptions<T>(schema: Shape<T>, options: unknown, spec: OptionsSpec): T;
export function validateOptions<T>(schema: Type<T>, options: unknown, spec: OptionsSpec): T;
export function validateOptions<T>(schema: Shape<T> | ArkTypeLike<T>, options: unknown, spec: OptionsSpec): T {
  const value = definedOptions(options);
  const found = firstIssue(schema as Shape<unknown> | ArkTypeLike<unknown>, value);
  if (!found) return value as T;
  const field = found.path.length ? found.path.join('.') : '(options)';
  const whole = field === '(options)';
  throw new OryxError(spec.code, `${spec.plugin}(): ${whole ? 'options' : `option ${field}`} ${found.problem}${unknownKeyNote(found)}`, {
    hint: whole
      ? `Call ${spec.plugin}() with an options object, e.g. ${spec.example}.`
      : `Fix ${field} in ${spec.plugin}({...}) in oryx.config.ts; see the option table in the @oryxos/plugin-${spec.plugin} README.`,
    data: { field },
  });
}

/** For an unknown key (most often a typo): the closest known key and the known ones at that level. */
function unknownKeyNote(found: ShapeIssue): string {
  if (!found.known?.length || !found.path.length) return '';
  const { path, known } = found;
  return `${didYouMean(String(path.at(-1)), known)} (known ${path.length > 1 ? `keys of ${path.slice(0, -1).join('.')}` : 'options'}: ${known.join(', ')})`;
}

/** Validates a config object; the error names the field. */
export function resolveConfig(raw: unknown, root: string, file?: string): ResolvedConfig {
  const where = file ? path.relative(process.cwd(), file) || file : 'config';
  const candidate = raw && typeof raw === 'object' && 'default' in raw && !('plugins' in raw) ? (raw as { default: unknown }).default : raw;
  // An option left undefined (defaultProvider: process.env.X) means "not set".
  const found = s.check(configShape, definedOptions(candidate));
  if (found) {
    const field = found.path.length ? found.path.join('.') : '(root)';
    if (found.problem === 'must be removed' && found.path.length === 1) {
      const key = String(found.path[0]);
      const line = file ? lineOfKey(readFileSafe(file), key) : undefined;
      throw new OryxError('ORYX_E_CONFIG_INVALID', `${where}${line ? `:${line}` : ''}: unknown key "${key}"${unknownKeyNote(found)}`, {
        hint: 'Fix or remove that key in defineConfig({...}); see the README for the config format.',
        data: { field, line },
      });
    }
    throw new OryxError('ORYX_E_CONFIG_INVALID', `${where}: ${field} ${found.problem}`, {
      hint: field.startsWith('plugins')
        ? 'Each plugin entry must be the object a plugin factory returns, e.g. plugins: [sqlite()].'
        : 'Fix that field in oryx.config.ts; see the README for the config format.',
      data: { field, summary: `${field} ${found.problem}` },
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
