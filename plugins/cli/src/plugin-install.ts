/**
 * Helpers of `oryx plugins install` and `link` around oclif's plugin manager, which keeps the
 * plugins a user adds in an npm project in its data folder (`~/.local/share/oryxos`).
 */
import { existsSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
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

/**
 * How npm runs in the plugins project: it ignores peer dependencies (a plugin takes the kernel,
 * the CLI base and @oclif/core as peers, and this installation provides them through
 * bin/host-modules.js, so npm must neither fetch copies of its own nor fail offline trying), and
 * it runs no lifecycle script (`preinstall`, `install`, `postinstall`, `prepare`) of a plugin or
 * of anything it depends on: installing a plugin runs none of its code, deny by default. A folder
 * is installed as a copy of what it would publish (`files`), its dependencies beside it, so it
 * works from the plugins project as a package from the registry would; `oryx plugins link` is
 * for a folder that should stay live.
 */
export async function ignorePeerDependencies(dataDir: string): Promise<void> {
  const file = path.join(dataDir, '.npmrc');
  let text = await readFile(file, 'utf8').catch(() => '');
  const lines: string[] = [];
  if (!/^legacy-peer-deps\s*=\s*true\s*$/m.test(text)) lines.push('# Written by oryx plugins install: OryxOS provides the kernel and @oclif/core to plugins.', 'legacy-peer-deps=true');
  if (!/^install-links\s*=\s*true\s*$/m.test(text)) lines.push('# Written by oryx plugins install: a folder is installed as a copy (with its dependencies), never as a link to it.', 'install-links=true');
  if (!/^ignore-scripts\s*=\s*true\s*$/m.test(text)) lines.push('# Written by oryx plugins install: installing a plugin runs none of its (or its dependencies\') lifecycle scripts.', 'ignore-scripts=true');
  if (!lines.length) return;
  text = `${text}${text && !text.endsWith('\n') ? '\n' : ''}${lines.join('\n')}\n`;
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, text);
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
