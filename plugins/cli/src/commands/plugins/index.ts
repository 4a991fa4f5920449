import { errorMessage } from '@oryxos/provider-spec';
import { kernelVersion } from '@oryxos/kernel';
import satisfies from 'semver/functions/satisfies.js';
import { OryxCommand } from '../../command.ts';
import { table } from '../../format.ts';
import { installedPackages } from '../../installation.ts';
import { readPluginPackage } from '../../plugin-package.ts';

/** One row of `oryx plugins`. */
export interface PluginRow {
  package: string;
  version: string;
  /** The kernel range an OryxOS plugin was built for; absent for a package that only brings commands. */
  kernel?: string;
  /** Whether this OryxOS's kernel satisfies that range. */
  kernelOk?: boolean;
  /** Whether oryx.config.ts enables it (undefined when the config could not be loaded). */
  enabled?: boolean;
  /** `bundled` (comes with the CLI), `installed` (`oryx plugins install`) or `linked` (`oryx plugins link`). */
  from: 'bundled' | 'installed' | 'linked';
  /** What the plugin declares its own code does: exec, http, files:write, smtp, … */
  permissions: string[];
  commands: boolean;
  root: string;
}

export default class Plugins extends OryxCommand {
  static override summary = 'The plugins of this installation: version, kernel range, whether oryx.config.ts enables them, and the permissions they declare.';
  static override description = 'Lists the OryxOS plugins that come with the CLI and every plugin added with `oryx plugins install` or `link`. '
    + 'Installing a plugin does not switch it on: oryx.config.ts does. Permissions are what the plugin declares its own code does; '
    + 'what agents and tools may do is what the sandbox allows.';
  static override examples = ['<%= config.bin %> plugins', '<%= config.bin %> plugins --json'];
  static override enableJsonFlag = true;
  static override readOnly = true;

  async run(): Promise<{ kernel: string; items: PluginRow[] }> {
    await this.parse(Plugins);
    const kernel = kernelVersion();
    let enabled: Set<string> | undefined = new Set();
    try {
      const config = await this.loadConfig();
      enabled = new Set(config?.plugins.map((p) => p.package).filter((p): p is string => p !== undefined));
    } catch (error) {
      enabled = undefined;
      this.logToStderr(`warning: oryx.config.ts could not be loaded, so which plugins it enables is unknown: ${errorMessage(error)}`);
    }
    const items: PluginRow[] = [];
    for (const installed of installedPackages(this.config)) {
      const info = readPluginPackage(installed.root);
      if (installed.type === 'core' && !info.oryx) continue; // the kernel, kits and the CLI's own commands
      items.push({
        package: info.name, version: info.version,
        ...(info.oryx ? { kernel: info.oryx.kernel, kernelOk: satisfies(kernel, info.oryx.kernel) } : {}),
        enabled: enabled?.has(info.name),
        from: installed.type === 'core' ? 'bundled' : installed.type === 'user' ? 'installed' : 'linked',
        permissions: info.oryx?.permissions ?? [], commands: info.commands, root: installed.root,
      });
    }
    if (!this.jsonEnabled()) {
      this.log(table(items.map((p) => ({
        plugin: p.package, version: p.version,
        kernel: p.kernel ? `${p.kernel}${p.kernelOk ? '' : ` (this is ${kernel}: refused)`}` : '(commands only)',
        enabled: p.enabled === undefined ? '?' : p.enabled ? 'yes' : 'no',
        from: p.from, permissions: p.permissions.join(' ') || '—',
      }))));
    }
    return { kernel, items };
  }
}
