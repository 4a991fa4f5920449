import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';

/** Symlinks followed before a path counts as a loop (the usual kernel limit). */
const MAX_LINKS = 40;

const isMissing = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
};

/**
 * Joins without normalizing, so `realpath` sees `link/..` the way the operating system
 * does (the parent of the link's target, not the folder holding the link).
 */
export function absolute(p: string, base: string): string {
  return path.isAbsolute(p) ? p : `${base}${path.sep}${p}`;
}

/**
 * The path the operating system would reach: `realpath` of the deepest part that exists,
 * plus the part that does not exist yet. A dangling symlink on the way is followed to its
 * target (a write through it would create the target), so it cannot hide a way out.
 * Throws ELOOP on symlink loops and passes on other I/O errors (permission denied).
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

/** True when `child` is `root` or below it, compared by whole path segments. */
export function isWithin(child: string, root: string): boolean {
  const c = segments(child);
  const r = segments(root);
  if (r.length > c.length) return false;
  return r.every((part, i) => part === c[i]);
}

function segments(p: string): string[] {
  return p.split(path.sep).filter((s, i) => s !== '' || i === 0);
}
