/**
 * Helpers of `oryx plugins install` and `link` around oclif's plugin manager, which keeps the
 * plugins a user adds in an npm project in its data folder (`~/.local/share/oryxos`): installed
 * packages as tarball snapshots in `snapshots/`, npm run with lifecycle scripts off.
 */
import { existsSync, statSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { register } from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The absolute folder an install argument names — `./dir`, `/abs/dir`, `~/dir`, `file:dir`, or
 * an existing folder with a package.json — or undefined for an npm package name or a URL.
 */
export function localPath(arg: string, cwd = process.cwd()): string | undefined {
  if (arg.startsWith('file:')) return path.resolve(cwd, arg.startsWith('file://') ? fileURLToPath(arg) : arg.slice('file:'.length));
  if (arg.startsWith('~/')) return path.join(homedir(), arg.slice(2));
  if (arg.startsWith('.') || path.isAbsolute(arg)) return path.resolve(cwd, arg);
  const candidate = path.resolve(cwd, arg);
  return existsSync(path.join(candidate, 'package.json')) && statSync(candidate).isDirectory() ? candidate : undefined;
}

/** The `dependencies` of the plugins project in `dataDir` (what `oryx plugins install` added). */
export async function readDependencies(dataDir: string): Promise<Record<string, string>> {
  try {
    return JSON.parse(await readFile(path.join(dataDir, 'package.json'), 'utf8')).dependencies ?? {};
  } catch {
    return {};
  }
}

/** What the plugins project's .npmrc must say, and why. */
const NPMRC: [RegExp, string][] = [
  // A plugin takes the kernel, the CLI base and @oclif/core as peers, and this installation
  // provides them (bin/host-modules.js): npm must neither fetch copies of its own nor fail offline trying.
  [/^legacy-peer-deps\s*=\s*true\s*$/m, '# Written by oryx plugins install: OryxOS provides the kernel and @oclif/core to plugins.\nlegacy-peer-deps=true\n'],
  // Installing (and `oryx plugins update`) runs nothing of a package: no preinstall, install, postinstall, prepare.
  [/^ignore-scripts\s*=\s*true\s*$/m, '# Written by oryx plugins install: installing a plugin runs none of its scripts.\nignore-scripts=true\n'],
];

/**
 * The plugins project's `.npmrc` in `dataDir`: peer dependencies ignored (this installation
 * provides them) and lifecycle scripts off, for `oryx plugins install` and for every npm
 * command oclif runs there later (`oryx plugins update`).
 */
export async function pluginsNpmrc(dataDir: string): Promise<void> {
  const file = path.join(dataDir, '.npmrc');
  let text = await readFile(file, 'utf8').catch(() => '');
  const before = text;
  for (const [present, line] of NPMRC) if (!present.test(text)) text = `${text}${text && !text.endsWith('\n') ? '\n' : ''}${line}`;
  if (text === before) return;
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, text);
}

/**
 * Runs `fn` (an npm command oclif spawns from this process) with npm's lifecycle scripts off,
 * above any npmrc the user has (`npm_config_ignore_scripts`, which npm reads before its files).
 */
export async function withoutScripts<T>(fn: () => Promise<T>): Promise<T> {
  const saved = process.env.npm_config_ignore_scripts;
  process.env.npm_config_ignore_scripts = 'true';
  try {
    return await fn();
  } finally {
    if (saved === undefined) delete process.env.npm_config_ignore_scripts;
    else process.env.npm_config_ignore_scripts = saved;
  }
}

/**
 * Drops the installed entries named `name` from the plugins project's oclif list, before the
 * same package is installed again: oclif would keep the first entry of a name, with the URL of
 * the earlier install.
 */
export async function forgetPlugin(dataDir: string, name: string): Promise<void> {
  const file = path.join(dataDir, 'package.json');
  let pkg: { oclif?: { plugins?: ({ name?: string; type?: string } | string)[] } };
  try { pkg = JSON.parse(await readFile(file, 'utf8')); } catch { return; }
  const list = pkg.oclif?.plugins;
  if (!list) return;
  const kept = list.filter((p) => !(typeof p === 'object' && p.type === 'user' && p.name === name));
  if (kept.length === list.length) return;
  pkg.oclif!.plugins = kept;
  await writeFile(file, JSON.stringify(pkg, null, 2));
}

/** Removes the snapshots (installed tarballs) in `dataDir/snapshots` that no dependency names any more. */
export async function pruneSnapshots(dataDir: string): Promise<void> {
  const used = new Set(Object.values(await readDependencies(dataDir)).map((spec) => path.basename(spec)));
  const dir = path.join(dataDir, 'snapshots');
  for (const name of await readdir(dir).catch(() => [])) {
    if (name.endsWith('.tgz') && !used.has(name)) await rm(path.join(dir, name), { force: true });
  }
}

const REGISTERED = Symbol.for('oryxos.hostModules');

/**
 * Makes this process resolve the packages OryxOS provides to plugins to the installation's
 * copies (the installation's bin/host-modules.js), unless bin/run.js already did: oclif loads a
 * plugin as soon as it is installed or linked, in this process.
 */
export function useHostModules(installation: string): void {
  const hooks = path.join(installation, 'bin', 'host-modules.js');
  const state = globalThis as { [REGISTERED]?: boolean };
  if (state[REGISTERED] || !existsSync(hooks)) return;
  register(pathToFileURL(hooks));
  state[REGISTERED] = true;
}
