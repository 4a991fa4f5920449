import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Args, Flags } from '@oclif/core';
import { commands } from '@oclif/plugin-plugins';
import { kernelVersion } from '@oryxos/kernel';
import { OryxCommand } from '@oryxos/command-kit';
import { forgetPlugin, pluginsNpmrc, pruneSnapshots, useHostModules, withoutScripts } from '../../plugin-install.ts';
import { installSource, packPlugin } from '../../plugin-pack.ts';
import { checkPackedPlugin, checkPluginPackage, type PluginPackageInfo } from '../../plugin-package.ts';

export default class PluginsInstall extends OryxCommand {
  static override summary = 'Install a plugin: a registry package, a folder or a tarball. Nothing of it runs while it installs.';
  static override description = 'The package is first made into one tarball with `npm pack --ignore-scripts` (a folder as it would be published, '
    + 'a registry package or a .tgz as it is) and checked from that tarball, before anything is installed: it must be an OryxOS plugin (an "oryx" '
    + 'block naming its factory and a kernel range this OryxOS satisfies) or an oclif plugin (commands, with their oclif.manifest.json). '
    + 'The tarball checked is the one installed, with npm lifecycle scripts off (no preinstall, install, postinstall, prepare), so a folder '
    + 'is installed as a copy: `oryx plugins link` is the live form. A git repository is refused (npm would build it by running its scripts). '
    + 'Installing does not switch a plugin on: add it to plugins in oryx.config.ts. oryx runs no oclif hook of an added plugin. '
    + 'The packages OryxOS provides to plugins (@oryxos/kernel, @oryxos/plugin-cli, @oclif/core, the kits) come from this installation.';
  static override aliases = ['plugins:add'];
  static override examples = ['<%= config.bin %> plugins install ./oryx-plugin-shout', '<%= config.bin %> plugins install oryx-plugin-shout@1.2.3'];
  static override args = { plugin: Args.string({ description: 'A registry package name (with an optional @version or @tag), a folder, or a .tgz tarball.', required: true }) };
  static override flags = {
    force: Flags.boolean({ char: 'f', summary: 'Refetch remote resources even if a local copy exists.' }),
    verbose: Flags.boolean({ char: 'v', summary: 'Show npm output.' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(PluginsInstall);
    const kernel = kernelVersion();
    const { dataDir } = this.config;
    const source = installSource(args.plugin);
    await mkdir(dataDir, { recursive: true });
    // Fetched (or packed) and checked first, in a folder of its own: a refused package leaves nothing behind.
    const staging = await mkdtemp(path.join(dataDir, '.staging-'));
    let snapshot: string;
    let checked: PluginPackageInfo;
    try {
      const packed = await packPlugin(source, staging);
      checked = checkPackedPlugin(packed.files, 'path' in source ? source.path : source.spec, kernel);
      const snapshots = path.join(dataDir, 'snapshots');
      await mkdir(snapshots, { recursive: true });
      // Named by its content: two packages (or two versions of one) never share an entry.
      snapshot = path.join(snapshots, `${path.basename(packed.file, '.tgz')}-${packed.shasum.slice(0, 12)}.tgz`);
      await rename(packed.file, snapshot);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    await pluginsNpmrc(dataDir);
    await forgetPlugin(dataDir, checked.name); // the registry entry of an earlier install of this name
    useHostModules(this.config.root);
    await withoutScripts(() => commands['plugins:install'].run([`file:${snapshot}`, ...(flags.force ? ['--force'] : []), ...(flags.verbose ? ['--verbose'] : ['--silent'])], this.config));
    const root = path.join(dataDir, 'node_modules', checked.name);
    let info: PluginPackageInfo;
    try {
      info = checkPluginPackage(root, kernel); // what npm put there is what was checked
    } catch (error) {
      await withoutScripts(() => commands['plugins:uninstall'].run([checked.name], this.config));
      throw error;
    }
    await pruneSnapshots(dataDir);
    this.log(describe(info));
  }
}

/** What an installed plugin brings, that nothing of it ran, and how to switch it on. */
function describe(info: PluginPackageInfo): string {
  const what = [info.oryx ? `an OryxOS plugin for kernel ${info.oryx.kernel}` : undefined, info.commands ? 'commands' : undefined].filter(Boolean).join(' and ');
  const lines = [
    `installed ${info.name}@${info.version}: ${what || 'an oclif plugin'}`,
    '  its npm scripts did not run (installed with --ignore-scripts): a package that needs them to build cannot work this way; build it, then install the folder or link it',
  ];
  if (info.hooks?.length) lines.push(`  its oclif hooks (${info.hooks.join(', ')}) never run: oryx runs no hook of an added plugin`);
  if (info.oryx) {
    lines.push(`  permissions it declares: ${info.oryx.permissions.join(', ') || 'none'} (a declaration, not enforced: once enabled its code runs with your rights)`);
    lines.push(`  not enabled yet: import it in oryx.config.ts (import plugin from '${info.name}') and add plugin() to plugins`);
  }
  return lines.join('\n');
}
