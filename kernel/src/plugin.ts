import { readFileSync } from 'node:fs';
import satisfies from 'semver/functions/satisfies.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PluginContext } from './context.ts';
import type { HookName, Hooks } from './hooks.ts';
import { didYouMean } from '@oryxos/schema-kit';
import { OryxError } from '@oryxos/provider-spec';
import type { ServiceName } from '@oryxos/contracts';

/**
 * The plugin contract. A plugin package exports a factory that validates its options at once
 * and returns this object; `setup` taps hooks and fills registries through its
 * {@link PluginContext}, loading heavy libraries with `await import()` so `oryx --help` never
 * pays for them. `version`, `kernel` and `package` come from the package's package.json
 * ({@link pluginPackage}), never from a hand-written copy.
 *
 * @example
 * export default function clock(options: { zone?: string } = {}): Plugin {
 *   return {
 *     ...pluginPackage(import.meta.url), name: 'clock', options,
 *     setup(ctx) {
 *       ctx.hooks.prepareStep.tapPromise({ stage: STAGE.LATE }, async (prompt) => {
 *         prompt.system.push({ id: 'zone', title: 'Time zone', content: options.zone ?? 'UTC' });
 *         return prompt;
 *       });
 *     },
 *   };
 * }
 */
export interface Plugin<Options = unknown> {
  name: string;
  version: string;
  /** The kernel semver range it was built for, e.g. `^1`. */
  kernel: string;
  /** The npm package it comes from, for `oryx plugins` and `oryx doctor`. */
  package?: string;
  /** Services it needs from other plugins (`['database']`): their providers are set up first. */
  requires?: ServiceName[];
  /** Services it offers with `ctx.provide()`; the loader checks every `requires` against these before any setup. */
  provides?: ServiceName[];
  /**
   * AGENT.md frontmatter keys this plugin reads (the memory plugin reads `memory:`). Any other
   * key the kernel does not know is an error naming the file, so a typo never goes unnoticed.
   */
  agentKeys?: string[];
  /**
   * `settings:` keys of AGENT.md this plugin reads (the approvals plugin's `pending_approval`),
   * each with its default and its check (an error sentence, or undefined when the value is good).
   * Every agent's settings get the default; a bad value is an error naming the file and key.
   */
  settings?: Record<string, PluginSetting>;
  /** Its options as its factory resolved them: `ctx.options` in setup. */
  options?: Options;
  setup(ctx: PluginContext<Options>): void | Promise<void>;
}

/** One agent setting a plugin declares ({@link Plugin.settings}). */
export interface PluginSetting {
  default: unknown;
  /** `must be one of refuse, deny` for a bad value; undefined for a good one. */
  check(value: unknown): string | undefined;
}

/** A plugin as written inline in `oryx.config.ts`: a name and setup, or only hooks; version and kernel range are optional there. */
export type InlinePlugin<Options = unknown> = Omit<Plugin<Options>, 'version' | 'kernel' | 'setup'> & {
  version?: string;
  kernel?: string;
  setup?(ctx: PluginContext<Options>): void | Promise<void>;
  /**
   * Taps by hook name, each at the default stage: the shorthand for a policy or audit hook.
   *
   * @example
   * hooks: { async beforeTool({ call }) { if (call.name === 'write_file' && String(call.args.path).endsWith('.env')) return { content: 'Not run: .env files are off limits', isError: true, denied: 'policy' }; } }
   */
  hooks?: { [K in HookName]?: HookTap<K> };
};

/**
 * Makes a plugin: a package's factory spreads {@link pluginPackage} into it; inline in
 * `oryx.config.ts`, a name and `setup` (or only `hooks`) are enough — the version defaults to
 * `0.0.0-inline` and the kernel range to any.
 *
 * @example
 * export const hello = () => definePlugin({ ...pluginPackage(import.meta.url), name: 'hello', setup(ctx) {} });
 * // in oryx.config.ts:
 * plugins: [definePlugin({ name: 'no-env-files', hooks: { async beforeTool({ call }) { … } } })]
 */
export function definePlugin<Options>(plugin: InlinePlugin<Options> | Plugin<Options>): Plugin<Options> {
  const { hooks, setup, ...rest } = plugin as InlinePlugin<Options>;
  return {
    version: INLINE_VERSION, kernel: '*', ...rest,
    setup: async (ctx) => {
      for (const [name, fn] of Object.entries(hooks ?? {})) {
        const hook = (ctx.hooks as Record<string, { tapPromise(fn: unknown): void } | undefined>)[name];
        if (!hook) {
          throw new OryxError('ORYX_E_PLUGIN_INVALID', `Plugin "${plugin.name}" taps an unknown hook "${name}"${didYouMean(name, Object.keys(ctx.hooks))}`, {
            hint: `Hooks are: ${Object.keys(ctx.hooks).join(', ')} (the kernel README lists what each one sees).`,
          });
        }
        hook.tapPromise(async (...args: unknown[]) => (fn as (...a: unknown[]) => unknown)(...args));
      }
      await setup?.(ctx);
    },
  };
}

/** The version an inline plugin gets when it names none. */
const INLINE_VERSION = '0.0.0-inline';

/** What {@link pluginPackage} reads from a plugin's package.json. */
export interface PluginPackage {
  /** The package name. */
  package: string;
  version: string;
  /** `oryx.kernel` of the package.json: the kernel range the package was built for. */
  kernel: string;
}

const packages = new Map<string, { name: string; version: string; oryx?: { kernel?: string } }>();

/** The package.json nearest above a module file, read once. */
export function readPackageJson(moduleUrl: string): { name: string; version: string; oryx?: { kernel?: string } } {
  for (let dir = path.dirname(fileURLToPath(moduleUrl)); ; dir = path.dirname(dir)) {
    const cached = packages.get(dir);
    if (cached) return cached;
    let text: string | undefined;
    try { text = readFileSync(path.join(dir, 'package.json'), 'utf8'); } catch { /* not here: look further up */ }
    if (text !== undefined) {
      const pkg = JSON.parse(text);
      packages.set(dir, pkg);
      return pkg;
    }
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${fileURLToPath(moduleUrl)}`);
  }
}

/**
 * The package name, version and kernel range of the plugin package a module belongs to, read
 * from its package.json (`"oryx": { "kernel": "^1" }`) when the factory is called: spread it
 * into the plugin object.
 *
 * @example
 * return { ...pluginPackage(import.meta.url), name: 'sqlite', setup(ctx) {} };
 */
export function pluginPackage(moduleUrl: string): PluginPackage {
  const pkg = readPackageJson(moduleUrl);
  if (typeof pkg.oryx?.kernel !== 'string') {
    throw new OryxError('ORYX_E_PLUGIN_INVALID', `The package.json of ${pkg.name} declares no kernel range`, {
      hint: 'Add "oryx": { "plugin": "./dist/index.js", "kernel": "^1" } to the package.json of the plugin.',
    });
  }
  return { package: pkg.name, version: pkg.version, kernel: pkg.oryx.kernel };
}

const describe = (plugin: Plugin) => `"${plugin.name}"@${plugin.version}${plugin.package ? ` (${plugin.package})` : ''}`;

/**
 * Checks each plugin's shape and kernel range, duplicates, and that every required service is
 * provided (by a plugin, or by the kernel for `builtIn` ones), and orders plugins so that a
 * service's provider is set up before the plugins that require it (stable: otherwise config
 * order). All of it before any setup runs.
 */
export function orderPlugins(plugins: Plugin[], kernelVersion: string, builtIn: readonly string[] = []): Plugin[] {
  const byName = new Map<string, Plugin>();
  const providers = new Map<string, Plugin>();
  plugins.forEach((plugin, index) => {
    if (!plugin || typeof plugin !== 'object' || typeof plugin.name !== 'string' || typeof plugin.setup !== 'function'
      || typeof plugin.version !== 'string' || typeof plugin.kernel !== 'string') {
      throw new OryxError('ORYX_E_PLUGIN_INVALID', `plugins[${index}] is not a plugin (needs name, version, kernel and setup)`, {
        hint: 'Put the result of the plugin factory in the list: plugins: [sqlite()], not [sqlite].',
      });
    }
    if (byName.has(plugin.name)) {
      throw new OryxError('ORYX_E_PLUGIN_DUPLICATE', `Plugin "${plugin.name}" is listed twice in oryx.config.ts`, {
        hint: 'Remove one of the two entries (to run two providers, give them different `name` options).',
      });
    }
    if (!satisfies(kernelVersion, plugin.kernel, { includePrerelease: true })) {
      throw new OryxError('ORYX_E_PLUGIN_KERNEL_MISMATCH', `Plugin ${describe(plugin)} needs kernel ${plugin.kernel}, but this is kernel ${kernelVersion}`, {
        hint: `Install a version of ${plugin.package ?? plugin.name} built for kernel ${kernelVersion}, or an OryxOS whose kernel matches ${plugin.kernel}.`,
        data: { plugin: plugin.name, range: plugin.kernel, kernel: kernelVersion },
      });
    }
    for (const service of plugin.provides ?? []) {
      const other = providers.get(service);
      if (other) {
        throw new OryxError('ORYX_E_REGISTRY_DUPLICATE', `Service "${service}" is provided by two plugins: ${other.name} and ${plugin.name}`, {
          hint: 'Enable only one of them in oryx.config.ts.',
        });
      }
      providers.set(service, plugin);
    }
    byName.set(plugin.name, plugin);
  });
  for (const plugin of plugins) {
    for (const service of plugin.requires ?? []) {
      if (!providers.has(service) && !builtIn.includes(service)) {
        throw new OryxError('ORYX_E_PLUGIN_MISSING_DEPENDENCY', `Plugin "${plugin.name}" requires the "${service}" service, which no enabled plugin provides`, {
          hint: `Enable a plugin that provides "${service}" in \`plugins\` of oryx.config.ts (the README of ${plugin.package ?? plugin.name} names one).`,
          data: { plugin: plugin.name, service },
        });
      }
    }
  }
  const ordered: Plugin[] = [];
  const state = new Map<Plugin, 'visiting' | 'done'>();
  const visit = (plugin: Plugin, trail: string[]): void => {
    const s = state.get(plugin);
    if (s === 'done') return;
    if (s === 'visiting') {
      throw new OryxError('ORYX_E_PLUGIN_CYCLE', `Plugins require each other's services in a cycle: ${[...trail, plugin.name].join(' → ')}`, {
        hint: 'Remove one of the `requires` entries.',
      });
    }
    state.set(plugin, 'visiting');
    for (const service of plugin.requires ?? []) {
      const provider = providers.get(service);
      if (provider && provider !== plugin) visit(provider, [...trail, plugin.name]);
    }
    state.set(plugin, 'done');
    ordered.push(plugin);
  };
  for (const plugin of plugins) visit(plugin, []);
  return ordered;
}

/** The function a tap of hook `K` is. */
export type HookTap<K extends HookName> = Hooks[K] extends { tapPromise(options: never, fn: infer F): void } ? F : never;
