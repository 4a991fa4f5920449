/**
 * What `oryx plugins install` installs, fetched and read before anything of it runs: the argument
 * (a folder, a tarball, a registry package) becomes one package tarball through `npm pack` with
 * lifecycle scripts off, and its package.json is read from the tarball. The tarball is what gets
 * installed, so what was checked is what runs, and a folder is installed as a copy (`link` is the
 * live form).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { OryxError } from '@oryxos/provider-spec';
import { ERROR_CODES } from './errors.ts';
import { localPath } from './plugin-install.ts';
import { readTarball } from './tarball.ts';

/** What an install argument names. */
export type InstallSource =
  | { kind: 'folder' | 'tarball'; path: string }
  | { kind: 'registry' | 'url'; spec: string };

/** GitHub's `user/repo` shorthand (a git repository: npm would run its `prepare` script to build it while fetching). */
const GIT = /^[^@./:][^/:@]*\/[^/:@]+(#.*)?$/;

/**
 * What an install argument names: an existing folder or `.tgz` file (`./dir`, `/abs`, `~/dir`,
 * `file:dir`), an `http(s)://` tarball, or a registry package (`name`, `name@1.2.0`,
 * `@scope/name@tag`). A git repository (`github:user/repo`, `user/repo`, `git+https://…`) is
 * refused (`ORYX_E_PLUGINS_SPEC`): npm builds one by running its scripts while it fetches it.
 *
 * @example
 * installSource('./oryx-plugin-shout', '/w'); // { kind: 'folder', path: '/w/oryx-plugin-shout' }
 * installSource('oryx-plugin-shout@1.2.3');   // { kind: 'registry', spec: 'oryx-plugin-shout@1.2.3' }
 */
export function installSource(arg: string, cwd = process.cwd()): InstallSource {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(arg)?.[1]?.toLowerCase();
  if ((scheme === 'http' || scheme === 'https') && !/\.git(#.*)?$/i.test(arg)) return { kind: 'url', spec: arg };
  if (scheme && scheme !== 'file') throw notInstallable(arg);
  const local = localPath(arg, cwd) ?? (/\.t(ar\.)?gz$/i.test(arg) ? path.resolve(cwd, arg) : undefined);
  if (local) {
    const file = /\.t(ar\.)?gz$/i.test(local) || (existsSync(local) && statSync(local).isFile());
    return { kind: file ? 'tarball' : 'folder', path: local };
  }
  if (GIT.test(arg)) throw notInstallable(arg);
  return { kind: 'registry', spec: arg };
}

function notInstallable(arg: string): OryxError {
  return new OryxError('ORYX_E_PLUGINS_SPEC', `${arg} is not a folder, a tarball or a registry package, so oryx will not install it`, {
    hint: ERROR_CODES.ORYX_E_PLUGINS_SPEC, data: { spec: arg },
  });
}

/** A package as `npm pack` made it: the tarball, and its files read from it. */
export interface PackedPlugin {
  /** The tarball's path. */
  file: string;
  name: string;
  version: string;
  /** sha1 of the tarball, as npm reports it. */
  shasum: string;
  /** The package's files by path, `package.json` among them. */
  files: Map<string, Buffer>;
}

/**
 * Packs (a folder) or fetches (a tarball, a URL, a registry package) `source` into `dest` with
 * `npm pack --ignore-scripts`, and reads the tarball. Runs nothing of the package: no
 * `prepack`, `prepare` or `postpack` of a folder, no script of a fetched package. Throws
 * `ORYX_E_PLUGINS_FETCH` with npm's own words when npm cannot.
 *
 * @example
 * const packed = await packPlugin({ kind: 'folder', path: '/home/me/oryx-plugin-shout' }, '/tmp/x');
 * packed.name; // 'oryx-plugin-shout'
 */
export async function packPlugin(source: InstallSource, dest: string): Promise<PackedPlugin> {
  const target = 'path' in source ? source.path : source.spec;
  if (source.kind === 'folder' && !existsSync(path.join(source.path, 'package.json'))) {
    throw new OryxError('ORYX_E_PLUGINS_NOT_A_PLUGIN', `${source.path} has no package.json`, {
      hint: 'Name the folder of a plugin package (the one holding its package.json), or an npm package name.',
    });
  }
  let stdout: string;
  try {
    stdout = await npm(['pack', target, '--ignore-scripts', '--json', '--pack-destination', dest, '--loglevel=error'], dest);
  } catch (error) {
    const said = String((error as { stderr?: string }).stderr ?? (error as Error).message).trim().split('\n').filter(Boolean).slice(-3).join(' ');
    throw new OryxError('ORYX_E_PLUGINS_FETCH', `npm could not fetch ${target}: ${said}`, { hint: ERROR_CODES.ORYX_E_PLUGINS_FETCH, cause: error });
  }
  const [report] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { name: string; version: string; filename: string; shasum: string }[];
  if (!report) throw new OryxError('ORYX_E_PLUGINS_FETCH', `npm pack made nothing of ${target}`, { hint: ERROR_CODES.ORYX_E_PLUGINS_FETCH });
  const file = path.join(dest, report.filename);
  let files: Map<string, Buffer>;
  try {
    files = readTarball(await readFile(file));
  } catch (error) {
    throw new OryxError('ORYX_E_PLUGINS_FETCH', `${target} is not a package tarball (${(error as Error).message})`, { hint: ERROR_CODES.ORYX_E_PLUGINS_FETCH, cause: error });
  }
  return { file, name: report.name, version: report.version, shasum: report.shasum, files };
}

/**
 * npm as `oryx plugins install` runs it (the copy `@oclif/plugin-plugins` pins, else the one on
 * PATH), with lifecycle scripts off whatever the user's npm config says.
 */
function npm(args: string[], cwd: string): Promise<string> {
  let cli: string | undefined;
  try {
    const from = createRequire(createRequire(import.meta.url).resolve('@oclif/plugin-plugins/package.json'));
    const pkgFile = from.resolve('npm/package.json');
    cli = path.join(path.dirname(pkgFile), (JSON.parse(readFileSync(pkgFile, 'utf8')) as { bin: { npm: string } }).bin.npm);
  } catch {
    cli = undefined;
  }
  const [file, argv] = cli ? [process.execPath, [cli, ...args]] : [process.platform === 'win32' ? 'npm.cmd' : 'npm', args];
  return new Promise((resolve, reject) => {
    execFile(file, argv, { cwd, env: { ...process.env, ...IGNORE_SCRIPTS }, maxBuffer: 64 << 20, shell: !cli && process.platform === 'win32' }, (error, out, err) => {
      if (error) reject(Object.assign(error, { stderr: err }));
      else resolve(out);
    });
  });
}

/** The environment that turns npm's lifecycle scripts off, above every npmrc. */
export const IGNORE_SCRIPTS = { npm_config_ignore_scripts: 'true' } as const;
