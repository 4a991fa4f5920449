import path from 'node:path';

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
