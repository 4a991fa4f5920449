import path from 'node:path';

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
