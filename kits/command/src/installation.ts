/**
 * The OryxOS installation a command runs from: its own packages (bundled with the CLI) and the
 * plugins added with `oryx plugins install` or `link` (oclif keeps those in its data folder).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '@oclif/core';
import { findPackage } from './config-imports.ts';

/**
 * Where a bare import of `oryx.config.ts` that the project cannot resolve is looked up, in
 * order: this installation, the plugins folder of `oryx plugins install`, each linked plugin.
 */
export function pluginSources(config: Config): string[] {
  const linked = [...config.plugins.values()].filter((p) => p.type === 'link').map((p) => p.root);
  return [config.root, config.dataDir, ...linked];
}

/** One package of the installation, as `oryx --version` and `oryx plugins` list it. */
export interface InstalledPackage {
  name: string;
  version: string;
  /** `core` (comes with the CLI), `user` (`oryx plugins install`) or `link` (`oryx plugins link`). */
  type: 'core' | 'user' | 'link';
  root: string;
}

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

/**
 * The packages of the installation: every `@oryxos/*` dependency of the CLI (kernel, plugins,
 * kits) and every plugin installed or linked by the user, with versions read from their
 * package.json files (no plugin code is loaded).
 */
export function installedPackages(config: Config): InstalledPackage[] {
  const own = Object.keys(readJson(path.join(config.root, 'package.json')).dependencies ?? {})
    .filter((name) => name.startsWith('@oryxos/'))
    .map((name) => findPackage(name, config.root))
    .filter((root): root is string => root !== undefined)
    .map((root) => {
      const { name, version } = readJson(path.join(root, 'package.json'));
      return { name, version, type: 'core' as const, root };
    });
  const added = [...config.plugins.values()]
    .filter((p) => p.type === 'user' || p.type === 'link')
    .map((p) => ({ name: p.name, version: p.version, type: p.type as 'user' | 'link', root: p.root }));
  return [...own, ...added].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The version story of `oryx --version` and `/api/info`: the CLI, the kernel and each package.
 *
 * @example
 * versions(this.config) // { cli: '0.1.0', kernel: '1.0.0', packages: { '@oryxos/plugin-sqlite': '0.1.0', … } }
 */
export function versions(config: Config): { cli: string; kernel: string | undefined; packages: Record<string, string> } {
  const packages = Object.fromEntries(installedPackages(config).map((p) => [p.name, p.version]));
  return { cli: config.version, kernel: packages['@oryxos/kernel'], packages };
}
