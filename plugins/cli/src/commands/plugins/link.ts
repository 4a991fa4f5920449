import { Args, Flags } from '@oclif/core';
import { commands } from '@oclif/plugin-plugins';
import { kernelVersion } from '@oryxos/kernel';
import { OryxCommand } from '@oryxos/command-kit';
import { localPath, pluginsNpmrc, useHostModules, withoutScripts } from '../../plugin-install.ts';
import { checkPluginPackage } from '../../plugin-package.ts';

export default class PluginsLink extends OryxCommand {
  static override summary = 'Link a plugin folder into oryx, for developing it: its commands and its plugin load from the folder as it is.';
  static override description = 'The folder is checked first, as `oryx plugins install` checks one. Unlike an install (a copy), the plugin '
    + 'loads from the folder as it is at each start, so whoever may write the folder changes what runs: link only a folder that is yours. '
    + 'A linked plugin overrides an installed one with the same commands. `oryx plugins uninstall NAME` unlinks it.';
  static override examples = ['<%= config.bin %> plugins link ./oryx-plugin-shout'];
  static override args = { path: Args.string({ description: 'The plugin folder.', default: '.' }) };
  static override flags = {
    install: Flags.boolean({ summary: 'Install its dependencies first, when it has a lockfile (npm or yarn), with their scripts off.', allowNo: true, default: true }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(PluginsLink);
    const folder = localPath(args.path) ?? localPath(`./${args.path}`)!;
    const info = checkPluginPackage(folder, kernelVersion());
    await pluginsNpmrc(this.config.dataDir);
    useHostModules(this.config.root);
    // Its dependencies (--install) are installed with npm's scripts off, as every plugin install is.
    await withoutScripts(() => commands['plugins:link'].run([folder, ...(flags.install ? [] : ['--no-install'])], this.config));
    this.log(`linked ${info.name}@${info.version} from ${folder}${info.oryx ? ": not enabled yet, add it to plugins in oryx.config.ts" : ''}`);
  }
}
