import { errorMessage } from '@oryxos/provider-spec';
import { kernelVersion } from '@oryxos/kernel';
import satisfies from 'semver/functions/satisfies.js';
import { OryxCommand } from '@oryxos/command-kit';
import { table } from '@oryxos/command-kit';
import { installedPackages } from '@oryxos/command-kit';
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
  /**
   * What the plugin's package.json says its own code does (exec, http, files:write, smtp, …): a
   * declaration, not enforced. Its code runs in the oryx process with your rights; the sandbox
   * governs what agents, tools and the programs they start may do.
   */
  declaredPermissions: string[];
  commands: boolean;
  root: string;
}

export default class Plugins extends OryxCommand {
  static override summary = 'The plugins of this installation: version, kernel range, whether oryx.config.ts enables them, and the permissions they declare (not enforced).';
  static override description = 'Lists the OryxOS plugins that come with the CLI and every plugin added with `oryx plugins install` or `link`: what is listed is what loads. '
    + 'Installing a plugin does not switch it on: oryx.config.ts does. "Declares" is what the plugin\'s package.json says its own code does, a declaration '
    + 'nobody checks: an enabled plugin\'s code runs with your rights. What agents, tools and their programs may do is what the sandbox allows.';
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
        declaredPermissions: info.oryx?.permissions ?? [], commands: info.commands, root: installed.root,
      });
    }
    if (!this.jsonEnabled()) {
      this.log(table(items.map((p) => ({
        plugin: p.package, version: p.version,
        kernel: p.kernel ? `${p.kernel}${p.kernelOk ? '' : ` (this is ${kernel}: refused)`}` : '(commands only)',
        enabled: p.enabled === undefined ? '?' : p.enabled ? 'yes' : 'no',
        from: p.from, 'declares (not enforced)': p.declaredPermissions.join(' ') || '—',
      }))));
    }
    return { kernel, items };
  }
}
