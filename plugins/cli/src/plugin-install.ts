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
 * npm in the plugins project ignores peer dependencies: a plugin takes the kernel, the CLI base
 * and @oclif/core as peers, and this installation provides them (bin/host-modules.js), so npm
 * must neither fetch copies of its own nor fail offline trying.
 */
export async function ignorePeerDependencies(dataDir: string): Promise<void> {
  const file = path.join(dataDir, '.npmrc');
  const text = await readFile(file, 'utf8').catch(() => '');
  if (/^legacy-peer-deps\s*=\s*true\s*$/m.test(text)) return;
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${text}${text && !text.endsWith('\n') ? '\n' : ''}# Written by oryx plugins install: OryxOS provides the kernel and @oclif/core to plugins.\nlegacy-peer-deps=true\n`);
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
