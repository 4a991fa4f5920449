import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PluginContext } from './context.ts';
import { OryxError } from './errors.ts';
import type { Services } from './types.ts';

/** The name of a service plugins provide to each other (`database`, `sessions`, `sandbox`, …). */
export type ServiceName = keyof Services & string;

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
 *       ctx.hooks.beforePrompt.tapPromise({ stage: STAGE.LATE }, async (prompt) => {
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
  /** Its options as its factory resolved them: `ctx.options` in setup. */
  options?: Options;
  setup(ctx: PluginContext<Options>): void | Promise<void>;
}

/**
 * Gives a plugin object its type (and its options' type to `ctx.options`).
 *
 * @example
 * export const hello = () => definePlugin({ ...pluginPackage(import.meta.url), name: 'hello', setup(ctx) {} });
 */
export function definePlugin<Options>(plugin: Plugin<Options>): Plugin<Options> {
  return plugin;
}

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

const NUMBER = '(0|[1-9]\\d{0,14})';
const PLAIN_VERSION = new RegExp(`^${NUMBER}\\.${NUMBER}\\.${NUMBER}$`);
const CARET_RANGE = new RegExp(`^\\s*\\^${NUMBER}(?:\\.${NUMBER}(?:\\.${NUMBER})?)?\\s*$`);

/**
 * Whether `version` is in `range`, as semver's `satisfies` says. A caret range of numbers (`^1`,
 * `^1.2`, `^0.3.1`: what plugins declare) against a plain `x.y.z` is answered here; anything else
 * loads semver, so a start does not compile its ~47 KB for one comparison.
 *
 * @example
 * kernelSatisfies('1.4.0', '^1.2'); // true
 */
export function kernelSatisfies(version: string, range: string): boolean {
  const v = PLAIN_VERSION.exec(version);
  const r = CARET_RANGE.exec(range);
  if (!v || !r) return (createRequire(import.meta.url)('semver/functions/satisfies.js') as (v: string, r: string) => boolean)(version, range);
  const have = [Number(v[1]), Number(v[2]), Number(v[3])];
  const floor = [Number(r[1]), Number(r[2] ?? 0), Number(r[3] ?? 0)];
  // The first part that is not 0 (or the last one given) stays fixed; the ones after it may grow.
  const given = r[3] !== undefined ? 3 : r[2] !== undefined ? 2 : 1;
  const nonZero = floor.findIndex((x) => x !== 0);
  const fixed = nonZero === -1 ? given - 1 : nonZero;
  for (let i = 0; i <= fixed; i++) if (have[i] !== floor[i]) return false;
  for (let i = fixed + 1; i < 3; i++) if (have[i] !== floor[i]) return have[i]! > floor[i]!;
  return true;
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
    if (!kernelSatisfies(kernelVersion, plugin.kernel)) {
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
