import path from 'node:path';
import { Args, Flags } from '@oclif/core';
import { commands } from '@oclif/plugin-plugins';
import { kernelVersion } from '@oryxos/kernel';
import { OryxCommand } from '../../command.ts';
import { ignorePeerDependencies, localPath, readDependencies, useHostModules } from '../../plugin-install.ts';
import { checkPluginPackage, type PluginPackageInfo } from '../../plugin-package.ts';

export default class PluginsInstall extends OryxCommand {
  static override summary = 'Install a plugin: an npm package, or a folder holding one.';
  static override description = 'A folder (./my-plugin, /abs/dir, file:/abs/dir) is checked before anything is installed: it must be an OryxOS plugin '
    + '(an "oryx" block naming its factory and a kernel range this OryxOS satisfies) or an oclif plugin (commands). An npm package is checked once '
    + 'installed and removed again when it is neither. Installing does not switch a plugin on: add it to plugins in oryx.config.ts. '
    + 'The packages OryxOS provides to plugins (@oryxos/kernel, @oryxos/plugin-cli, @oclif/core, the kits) come from this installation.';
  static override aliases = ['plugins:add'];
  static override examples = ['<%= config.bin %> plugins install ./oryx-plugin-shout', '<%= config.bin %> plugins install oryx-plugin-shout'];
  static override args = { plugin: Args.string({ description: 'An npm package name (with an optional @version) or a folder.', required: true }) };
  static override flags = {
    force: Flags.boolean({ char: 'f', summary: 'Refetch remote resources even if a local copy exists.' }),
    verbose: Flags.boolean({ char: 'v', summary: 'Show npm output.' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(PluginsInstall);
    const kernel = kernelVersion();
    const folder = localPath(args.plugin);
    let spec = args.plugin;
    if (folder) {
      checkPluginPackage(folder, kernel);
      spec = `file:${folder}`;
    }
    const before = await readDependencies(this.config.dataDir);
    await ignorePeerDependencies(this.config.dataDir);
    useHostModules(this.config.root);
    await commands['plugins:install'].run([spec, ...(flags.force ? ['--force'] : []), ...(flags.verbose ? ['--verbose'] : ['--silent'])], this.config);
    const added = Object.keys(await readDependencies(this.config.dataDir)).filter((name) => !(name in before));
    for (const name of added) {
      const root = path.join(this.config.dataDir, 'node_modules', name);
      let info: PluginPackageInfo;
      try {
        info = checkPluginPackage(root, kernel);
      } catch (error) {
        await commands['plugins:uninstall'].run([name], this.config);
        throw error;
      }
      this.log(describe(info));
    }
  }
}

/** What an installed plugin brings, and how to switch it on. */
function describe(info: PluginPackageInfo): string {
  const what = [info.oryx ? `an OryxOS plugin for kernel ${info.oryx.kernel}` : undefined, info.commands ? 'commands' : undefined].filter(Boolean).join(' and ');
  const lines = [`installed ${info.name}@${info.version}: ${what || 'an oclif plugin'}`];
  if (info.oryx) {
    lines.push(`  permissions it declares: ${info.oryx.permissions.join(', ') || 'none'}`);
    lines.push(`  not enabled yet: import it in oryx.config.ts (import plugin from '${info.name}') and add plugin() to plugins`);
  }
  return lines.join('\n');
}
