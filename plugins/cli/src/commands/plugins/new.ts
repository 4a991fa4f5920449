import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Args, Flags } from '@oclif/core';
import { OryxError } from '@oryxos/provider-spec';
import { OryxCommand } from '@oryxos/command-kit';
import { findPackage } from '@oryxos/command-kit';
import { ERROR_CODES } from '../../errors.ts';
import { pluginTemplate, type PluginKind } from '../../plugin-templates.ts';

export default class PluginsNew extends OryxCommand {
  static override summary = 'Write a new plugin package: a tool, an LLM provider or a channel, with its README, error codes and a test that passes.';
  static override description = 'The package builds with `npm run build` and tests with `npm test` (uvu on @oryxos/kernel/testing); '
    + 'its @oryxos/* development dependencies point at this installation. Then `oryx plugins link DIR` and add it to oryx.config.ts.';
  static override examples = ['<%= config.bin %> plugins new word-count --kind tool', '<%= config.bin %> plugins new journal --kind channel --dir ./plugins'];
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ description: 'The plugin name: lowercase letters, digits and dashes (the package is oryx-plugin-NAME).', required: true }) };
  static override flags = {
    kind: Flags.string({ summary: 'What the plugin adds.', options: ['tool', 'provider', 'channel'], default: 'tool' }),
    dir: Flags.string({ summary: 'The folder to write the package folder into.', default: '.' }),
  };

  async run(): Promise<{ dir: string; package: string; kind: string; files: string[] }> {
    const { args, flags } = await this.parse(PluginsNew);
    if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(args.name)) {
      throw new OryxError('ORYX_E_PLUGINS_NEW_NAME', `"${args.name}" is not a plugin name`, { hint: ERROR_CODES.ORYX_E_PLUGINS_NEW_NAME });
    }
    const dir = path.resolve(flags.dir, `oryx-plugin-${args.name}`);
    if (existsSync(dir)) {
      throw new OryxError('ORYX_E_PLUGINS_NEW_EXISTS', `${dir} already exists`, { hint: ERROR_CODES.ORYX_E_PLUGINS_NEW_EXISTS });
    }
    // Until the packages are on a registry, the new package builds and tests against this installation's copies.
    const local = (name: string) => { const found = findPackage(name, this.config.root); return found ? `file:${found}` : '^0.1.0'; };
    const files = pluginTemplate(args.name, flags.kind as PluginKind, {
      kernel: local('@oryxos/kernel'), pluginKit: local('@oryxos/plugin-kit'), providerKit: local('@oryxos/provider-kit'),
      providerSpec: local('@oryxos/provider-spec'), contracts: local('@oryxos/contracts'),
    });
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    }
    if (!this.jsonEnabled()) {
      this.log(`Wrote oryx-plugin-${args.name} (a ${flags.kind}) in ${dir}:`);
      for (const file of Object.keys(files)) this.log(`  ${file}`);
      this.log(`Next: cd ${path.relative(process.cwd(), dir) || '.'} && npm install && npm test && npm run build, then oryx plugins link ${path.relative(process.cwd(), dir) || '.'}`);
    }
    return { dir, package: `oryx-plugin-${args.name}`, kind: flags.kind, files: Object.keys(files) };
  }
}
