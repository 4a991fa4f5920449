import { Args, Flags } from '@oclif/core';
import { commands } from '@oclif/plugin-plugins';
import { kernelVersion } from '@oryxos/kernel';
import { OryxCommand } from '../../command.ts';
import { ignorePeerDependencies, localPath, useHostModules } from '../../plugin-install.ts';
import { checkPluginPackage } from '../../plugin-package.ts';

export default class PluginsLink extends OryxCommand {
  static override summary = 'Link a plugin folder into oryx, for developing it: its commands and its plugin load from the folder as it is.';
  static override description = 'The folder is checked first, as `oryx plugins install` checks one. A linked plugin overrides an installed one '
    + 'with the same commands. `oryx plugins uninstall NAME` unlinks it.';
  static override examples = ['<%= config.bin %> plugins link ./oryx-plugin-shout'];
  static override args = { path: Args.string({ description: 'The plugin folder.', default: '.' }) };
  static override flags = {
    install: Flags.boolean({ summary: 'Install its dependencies first, when it has a lockfile (npm or yarn).', allowNo: true, default: true }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(PluginsLink);
    const folder = localPath(args.path) ?? localPath(`./${args.path}`)!;
    const info = checkPluginPackage(folder, kernelVersion());
    await ignorePeerDependencies(this.config.dataDir);
    useHostModules(this.config.root);
    await commands['plugins:link'].run([folder, ...(flags.install ? [] : ['--no-install'])], this.config);
    this.log(`linked ${info.name}@${info.version} from ${folder}${info.oryx ? ": not enabled yet, add it to plugins in oryx.config.ts" : ''}`);
  }
}
