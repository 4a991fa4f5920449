import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';

// The sandbox plugin resolves paths the same way; the tools do it too so that the path they
// enforce right before opening is the very path they open (no plugin imports another).

const MAX_LINKS = 40;

const isMissing = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
};

/** Joins without normalizing, so `realpath` treats `link/..` as the operating system does. */
export function absolute(p: string, base: string): string {
  return path.isAbsolute(p) ? p : `${base}${path.sep}${p}`;
}

/**
 * `realpath` of the deepest existing part plus the part not created yet; a dangling symlink
 * is followed to its target. Throws ELOOP on loops.
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

/** A path as the model should see it: relative to the project when inside it. */
export function display(p: string, root: string): string {
  const rel = path.relative(root, p);
  return rel === '' ? '.' : !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : p;
}

/** A short description of a file-system error for a tool result. */
export function fsProblem(error: unknown, shown: string): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT': return `${shown} does not exist`;
    case 'ENOTDIR': return `a part of ${shown} is not a folder`;
    case 'EISDIR': return `${shown} is a folder`;
    case 'EACCES': case 'EPERM': return `permission denied for ${shown}`;
    case 'ELOOP': return `${shown} is or goes through a symbolic link that changed or loops`;
    case 'ENAMETOOLONG': return `the path ${shown} is too long`;
    default: return `${shown}: ${(error as Error)?.message ?? String(error)}`;
  }
}
