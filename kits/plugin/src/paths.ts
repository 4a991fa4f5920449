/**
 * Path resolution shared by everything that checks a path and everything that opens it (the
 * sandbox and the built-in tools): both must reach the same file, so there is one
 * implementation.
 */
import { constants } from 'node:fs';
import { access, lstat, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** Symlinks followed before a path counts as a loop (the usual kernel limit). */
const MAX_LINKS = 40;

const isMissing = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
};

/**
 * `p` made absolute against `base`. Joins without normalizing, so `realpath` sees `link/..`
 * the way the operating system does (the parent of the link's target, not the folder holding
 * the link).
 *
 * @example
 * absolutePath('link/../x', '/project') // '/project/link/../x'
 */
export function absolutePath(p: string, base: string): string {
  return path.isAbsolute(p) ? p : `${base}${path.sep}${p}`;
}

/**
 * The path the operating system would reach: `realpath` of the deepest part that exists,
 * plus the part that does not exist yet. A dangling symlink on the way is followed to its
 * target (a write through it would create the target), so it cannot hide a way out.
 * Throws ELOOP on symlink loops and passes on other I/O errors (permission denied).
 *
 * @example
 * // /project/out -> /tmp/elsewhere (which does not exist yet)
 * await canonicalPath(absolutePath('out/new.txt', '/project')) // '/tmp/elsewhere/new.txt'
 */
export async function canonicalPath(p: string): Promise<string> {
  let pending = p;
  const rest: string[] = [];
  let links = 0;
  for (;;) {
    try {
      const real = await realpath(pending);
      return rest.length ? path.join(real, ...rest) : real;
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    let isLink = false;
    try { isLink = (await lstat(pending)).isSymbolicLink(); } catch (error) { if (!isMissing(error)) throw error; }
    if (isLink) {
      if (++links > MAX_LINKS) throw Object.assign(new Error(`too many symbolic links at ${pending}`), { code: 'ELOOP' });
      // Resolve the target against the real folder of the link, not the spelled one.
      const dir = await realpath(path.dirname(pending));
      pending = path.resolve(dir, await readlink(pending));
      continue;
    }
    const parent = path.dirname(pending);
    if (parent === pending) return path.join(pending, ...rest);
    rest.unshift(path.basename(pending));
    pending = parent;
  }
}

/**
 * The executable a command names, as an absolute path whose folder is `realpath`'d, or
 * undefined when there is no such executable file. A bare name is looked up on `envPath`
 * (absolute entries only: an empty or relative entry would mean the working directory); a
 * name with a slash is a path, relative to `base`. The file itself is not dereferenced,
 * because multi-call binaries (busybox) act on the name they were started by: allowing `ls`
 * must not allow every other name of the same file.
 *
 * @example
 * await resolveExecutable('git', '/project')            // '/usr/bin/git'
 * await resolveExecutable('./check.sh', '/project/ci')  // '/project/ci/check.sh' (if executable)
 */
export async function resolveExecutable(command: string, base: string, envPath = process.env.PATH ?? ''): Promise<string | undefined> {
  if (!command || command.includes('\0')) return undefined;
  if (command.includes('/') || command.includes(path.sep)) return executableAt(absolutePath(command, base));
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const found = await executableAt(path.join(dir, command));
    if (found) return found;
  }
  return undefined;
}

async function executableAt(file: string): Promise<string | undefined> {
  const name = path.basename(file);
  if (!name || name === '.' || name === '..') return undefined;
  try {
    if (!(await stat(file)).isFile()) return undefined;
    await access(file, constants.X_OK);
    return path.join(await realpath(path.dirname(file)), name);
  } catch {
    return undefined;
  }
}

const TEMP_SUFFIX = /^\.(.+)\.[0-9a-f]{12}\.oryx-tmp$/;

/**
 * The temp file an atomic write of `target` goes through (written, flushed, then renamed over
 * the target), in the same folder so the rename is atomic. `random` is 12 hex digits.
 *
 * @example
 * atomicTempPath('/p/notes.md', 'a1b2c3d4e5f6') // '/p/.notes.md.a1b2c3d4e5f6.oryx-tmp'
 */
export function atomicTempPath(target: string, random: string): string {
  return path.join(path.dirname(target), `.${path.basename(target).slice(0, 64)}.${random}.oryx-tmp`);
}

/**
 * The file an {@link atomicTempPath} stands for, or undefined when `p` is not one: the sandbox
 * judges a temp file as the file it will replace (a protected file's temp is protected, an
 * opted-in file's temp is allowed). Names over 64 characters come back cut to 64.
 *
 * @example
 * atomicTempTarget('/p/.notes.md.a1b2c3d4e5f6.oryx-tmp') // '/p/notes.md'
 */
export function atomicTempTarget(p: string): string | undefined {
  const m = TEMP_SUFFIX.exec(path.basename(p));
  return m ? path.join(path.dirname(p), m[1]!) : undefined;
}
