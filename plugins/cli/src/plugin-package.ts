/**
 * What makes a package something `oryx plugins install` accepts: an oclif plugin (a package.json
 * `oclif` block: commands, hooks, or `{}`) and, for an OryxOS plugin, an `oryx` block naming its
 * factory module and the kernel range it was built for. Checked before anything is installed,
 * with a message that says what is missing.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { OryxError } from '@oryxos/provider-spec';
import satisfies from 'semver/functions/satisfies.js';
import validRange from 'semver/ranges/valid.js';
import { ERROR_CODES } from './errors.ts';

/** The `oryx` block of an OryxOS plugin's package.json. */
export interface OryxBlock {
  /** The module whose default export is the plugin factory, relative to the package. */
  plugin: string;
  /** The kernel semver range the plugin was built for. */
  kernel: string;
  /**
   * What the plugin says its own code does, for people to read: `exec`, `http`, `http:<host>`,
   * `files:read`, `files:write`, `smtp`, `listen`. A declaration, not enforced: a plugin's code
   * runs in the oryx process with your rights; the sandbox governs what agents, tools and the
   * programs they start may do.
   */
  permissions: string[];
}

/** A package as `oryx plugins` sees it. */
export interface PluginPackageInfo {
  name: string;
  version: string;
  root: string;
  /** The OryxOS plugin it holds, if any. */
  oryx?: OryxBlock;
  /** Whether it is an oclif plugin (it may bring commands). */
  oclif: boolean;
  /** Whether it brings commands. */
  commands: boolean;
  /** The oclif hooks it declares (`init`, …), which oryx never runs for an added plugin. */
  hooks?: string[];
}

const example = '"oryx": { "plugin": "./dist/index.js", "kernel": "^1", "permissions": [] }';

function invalid(code: keyof typeof ERROR_CODES, message: string, hint: string = ERROR_CODES[code]): OryxError {
  return new OryxError(code, message, { hint });
}

type Manifest = { name?: string; version?: string; oclif?: { commands?: unknown; hooks?: Record<string, unknown> }; oryx?: Partial<OryxBlock> };

/** Reads a package's package.json; the package is not loaded. */
export function readPluginPackage(root: string): PluginPackageInfo {
  let pkg: Manifest;
  try {
    pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  } catch (error) {
    throw invalid('ORYX_E_PLUGINS_NOT_A_PLUGIN', `${root} has no readable package.json (${(error as Error).message})`,
      'Name the folder of a plugin package (the one holding its package.json), or an npm package name.');
  }
  return pluginInfo(pkg, root);
}

/** What `oryx plugins` shows of a package.json (`root`: where the package is, or was read from). */
export function pluginInfo(pkg: Manifest, root: string): PluginPackageInfo {
  const name = pkg.name ?? path.basename(root);
  const oryx = pkg.oryx ? { plugin: String(pkg.oryx.plugin ?? ''), kernel: String(pkg.oryx.kernel ?? ''), permissions: Array.isArray(pkg.oryx.permissions) ? pkg.oryx.permissions.map(String) : [] } : undefined;
  const hooks = Object.keys(pkg.oclif?.hooks ?? {});
  return { name, version: pkg.version ?? '0.0.0', root, oryx, oclif: pkg.oclif !== undefined, commands: Boolean(pkg.oclif?.commands), ...(hooks.length ? { hooks } : {}) };
}

/**
 * Checks that a package may be installed into this OryxOS: it is an oclif plugin or an OryxOS
 * plugin, an OryxOS plugin's `oryx` block names an existing factory module and a kernel range
 * that `kernelVersion` satisfies, and it has the `oclif` block oclif needs to load it. Throws
 * what is missing; returns what it read.
 *
 * @example
 * checkPluginPackage('/home/me/oryx-plugin-shout', '1.0.0');
 */
export function checkPluginPackage(root: string, kernelVersion: string): PluginPackageInfo {
  return checkPlugin(readPluginPackage(root), (file) => existsSync(path.join(root, file)), kernelVersion);
}

/**
 * {@link checkPluginPackage} for a package read from its tarball (`files`: its files by path),
 * before anything of it is installed, plus what an installed copy needs: a package that brings
 * commands ships its `oclif.manifest.json` for the version it is, since without one oclif
 * imports every command module at each start to list them (`ORYX_E_PLUGINS_NO_MANIFEST`).
 *
 * @example
 * checkPackedPlugin(readTarball(bytes), '/tmp/oryx-plugin-shout-1.2.3.tgz', '1.0.0');
 */
export function checkPackedPlugin(files: ReadonlyMap<string, Buffer>, where: string, kernelVersion: string): PluginPackageInfo {
  let pkg: Manifest;
  try {
    pkg = JSON.parse(files.get('package.json')?.toString('utf8') ?? '');
  } catch {
    throw invalid('ORYX_E_PLUGINS_NOT_A_PLUGIN', `${where} holds no readable package.json`,
      'Name the folder of a plugin package (the one holding its package.json), a package tarball, or an npm package name.');
  }
  const has = (file: string) => files.has(path.posix.normalize(file.replace(/\\/g, '/')).replace(/^(\.\/)+/, ''));
  const info = checkPlugin(pluginInfo(pkg, where), has, kernelVersion);
  if (info.commands) {
    let version: unknown;
    try { version = JSON.parse(files.get('oclif.manifest.json')?.toString('utf8') ?? 'null')?.version; } catch { version = undefined; }
    if (version !== info.version) {
      throw invalid('ORYX_E_PLUGINS_NO_MANIFEST', `${info.name}@${info.version} brings commands but ${version === undefined ? 'no oclif.manifest.json' : `an oclif.manifest.json for version ${String(version)}`}: `
        + 'oclif would import its command modules at every oryx start to list them, so it is not installed');
    }
  }
  return info;
}

function checkPlugin(info: PluginPackageInfo, has: (file: string) => boolean, kernelVersion: string): PluginPackageInfo {
  const { name, oryx, root } = info;
  if (!oryx && !info.oclif) {
    throw invalid('ORYX_E_PLUGINS_NOT_A_PLUGIN', `${name} is not an OryxOS plugin: its package.json has no "oryx" block (${example}) and no "oclif" block (commands)`);
  }
  if (oryx) {
    if (!oryx.plugin || !has(oryx.plugin)) {
      throw invalid('ORYX_E_PLUGINS_PACKAGE', `${name}: "oryx.plugin" ${oryx.plugin ? `names ${oryx.plugin}, which does not exist in ${root}` : 'is missing'}`,
        `Build the plugin (npm run build) or fix "oryx.plugin" in its package.json: ${example}.`);
    }
    if (!validRange(oryx.kernel)) {
      throw invalid('ORYX_E_PLUGINS_PACKAGE', `${name}: "oryx.kernel" must be the kernel semver range the plugin was built for (was ${JSON.stringify(oryx.kernel)})`,
        `Set it in its package.json: ${example}.`);
    }
    if (!satisfies(kernelVersion, oryx.kernel)) {
      throw new OryxError('ORYX_E_PLUGIN_KERNEL_MISMATCH', `${name}@${info.version} needs kernel ${oryx.kernel}, but this OryxOS has kernel ${kernelVersion}`, {
        hint: `Install a version of ${name} built for kernel ${kernelVersion}, or an OryxOS whose kernel matches ${oryx.kernel}.`,
        data: { plugin: name, range: oryx.kernel, kernel: kernelVersion },
      });
    }
    if (!info.oclif) {
      throw invalid('ORYX_E_PLUGINS_PACKAGE', `${name} declares an OryxOS plugin but no "oclif" block, which oryx needs to load it`,
        'Add "oclif": {} to its package.json (or "oclif": { "commands": "./dist/commands" } when it brings commands).');
    }
  }
  return info;
}
