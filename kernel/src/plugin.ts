import satisfies from 'semver/functions/satisfies.js';
import { OryxError } from './errors.ts';
import type { Kernel } from './kernel.ts';

/**
 * The plugin contract. A plugin package exports a factory that validates its options at once
 * and returns this object; `setup` taps hooks and fills registries, loading heavy libraries
 * with `await import()` so `oryx --help` never pays for them.
 *
 * @example
 * export default function clock(options: { zone?: string } = {}): Plugin {
 *   return {
 *     name: 'clock', version: '1.0.0', kernel: '^1',
 *     setup(kernel) {
 *       kernel.hooks.beforePrompt.tapPromise({ name: 'clock', stage: STAGE.LATE }, async (p) => p);
 *     },
 *   };
 * }
 */
export interface Plugin {
  name: string;
  version: string;
  /** The kernel semver range it was built for, e.g. `^1`. */
  kernel: string;
  /** Names of plugins that must be set up first. */
  requires?: string[];
  /**
   * AGENT.md frontmatter keys this plugin reads (the memory plugin reads `memory:`). Any other
   * key the kernel does not know is an error naming the file, so a typo never goes unnoticed.
   */
  agentKeys?: string[];
  setup(kernel: Kernel): void | Promise<void>;
}

/** Identity function that gives a plugin object its type. */
export function definePlugin(plugin: Plugin): Plugin {
  return plugin;
}

/**
 * Checks the kernel range, duplicates and `requires`, and orders plugins so that what is
 * required is set up first (stable: otherwise config order).
 */
export function orderPlugins(plugins: Plugin[], kernelVersion: string): Plugin[] {
  const byName = new Map<string, Plugin>();
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
    if (!satisfies(kernelVersion, plugin.kernel)) {
      throw new OryxError('ORYX_E_PLUGIN_KERNEL_MISMATCH',
        `Plugin "${plugin.name}"@${plugin.version} needs kernel ${plugin.kernel}, but this is kernel ${kernelVersion}`, {
          hint: `Install a version of ${plugin.name} that supports kernel ${kernelVersion}.`,
        });
    }
    byName.set(plugin.name, plugin);
  });
  for (const plugin of plugins) {
    for (const dep of plugin.requires ?? []) {
      if (!byName.has(dep)) {
        throw new OryxError('ORYX_E_PLUGIN_MISSING_DEPENDENCY', `Plugin "${plugin.name}" requires plugin "${dep}", which is not enabled`, {
          hint: `Add ${dep}() (package @oryxos/plugin-${dep}) to \`plugins\` in oryx.config.ts, before ${plugin.name}().`,
        });
      }
    }
  }
  const ordered: Plugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (plugin: Plugin, path: string[]): void => {
    const s = state.get(plugin.name);
    if (s === 'done') return;
    if (s === 'visiting') {
      throw new OryxError('ORYX_E_PLUGIN_CYCLE', `Plugins require each other in a cycle: ${[...path, plugin.name].join(' → ')}`, {
        hint: 'Remove one of the `requires` entries.',
      });
    }
    state.set(plugin.name, 'visiting');
    for (const dep of plugin.requires ?? []) visit(byName.get(dep)!, [...path, plugin.name]);
    state.set(plugin.name, 'done');
    ordered.push(plugin);
  };
  for (const plugin of plugins) visit(plugin, []);
  return ordered;
}
