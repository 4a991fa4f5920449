import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OryxError, isOryxError } from '@oryxos/provider-spec';
import { definedOptions, didYouMean, lineOfKey, shape as s, unknownKeyNote } from '@oryxos/schema-kit';
import { DEFAULT_SETTINGS, settingsShape, type AgentSettingsInput } from './agents.ts';
import { definePlugin, type InlinePlugin, type Plugin } from './plugin.ts';

const readFileSafe = (file: string): string => { try { return readFileSync(file, 'utf8'); } catch { return ''; } };

/** What `oryx.config.ts` exports (through {@link defineConfig}). */
export interface OryxConfig {
  /** The plugins to enable, each the result of its factory: `[sqlite(), audit()]`, or an inline `definePlugin({...})`. */
  plugins: Plugin[];
  /** Taps written in the config itself, by hook name: the shorthand for one inline plugin named `config`. */
  hooks?: InlinePlugin['hooks'];
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
export interface ResolvedConfig extends Required<Omit<OryxConfig, 'defaultProvider' | 'settings' | 'hooks'>> {
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
  defaultAgent: nonEmpty.optional(),
  defaultProvider: nonEmpty.optional(),
  settings: settingsShape.optional(),
  workspace: nonEmpty.optional(),
  hooks: s.custom('an object of hook functions', (v) => typeof v === 'object' && v !== null && Object.values(v).every((f) => typeof f === 'function')).optional(),
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
 * Validates a config object and resolves its paths; the error names the field (and the line of
 * an unknown key, with the closest known one).
 *
 * @example
 * const config = resolveConfig({ plugins: [sqlite()] }, '/proj', '/proj/oryx.config.ts');
 */
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
        ? 'Each plugin entry must be the object a plugin factory returns, e.g. plugins: [sqlite()], or definePlugin({ name, setup }) for one written here.'
        : 'Fix that field in oryx.config.ts; see the README for the config format.',
      data: { field, summary: `${field} ${found.problem}` },
    });
  }
  const config = candidate as OryxConfig;
  // Settings keys the kernel and the enabled plugins know: a typo is named here, not at the first run.
  const known = [...Object.keys(DEFAULT_SETTINGS), ...config.plugins.flatMap((p) => Object.keys(p.settings ?? {}))];
  const stray = Object.keys(config.settings ?? {}).find((k) => !known.includes(k));
  if (stray !== undefined) {
    const line = file ? lineOfKey(readFileSafe(file), stray) : undefined;
    throw new OryxError('ORYX_E_CONFIG_INVALID', `${where}${line ? `:${line}` : ''}: unknown key "${stray}" in settings${didYouMean(stray, known)} (known keys: ${[...known].sort().join(', ')})`, {
      hint: 'Fix or remove that key in settings of defineConfig({...}); a setting a plugin reads needs that plugin in plugins.',
      data: { field: `settings.${stray}`, line },
    });
  }
  const workspace = config.workspace ?? '.oryxos';
  const inline = config.hooks && Object.keys(config.hooks).length ? [definePlugin({ name: 'config', hooks: config.hooks })] : [];
  return {
    plugins: [...config.plugins, ...inline],
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
