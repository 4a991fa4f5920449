/**
 * Deny entries by what they are, not only where: the device, inode and birth time of every
 * deny entry that exists, recorded at start and kept across starts, so a denied file or folder
 * renamed, moved or hard-linked elsewhere is still denied at its new name — in this process and
 * after the next start. A copy made by reading the content is a new file and cannot be told
 * apart (what reads it must be denied in the first place).
 */
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A file or folder as the file system knows it. Birth time 0: the file system does not record one. */
export interface Identity { dev: number; ino: number; btime: number }

/** Identities kept per deny entry (the newest first); older ones are dropped. */
const MAX_PER_ENTRY = 16;

export function identityOf(s: { dev: number; ino: number; birthtimeMs: number }): Identity {
  return { dev: s.dev, ino: s.ino, btime: Math.round(s.birthtimeMs) };
}

/**
 * The same file: device and inode, and the birth time when both know one (an inode number is
 * reused once its file is deleted; the birth time tells the new file apart).
 */
export function sameIdentity(a: Identity, b: Identity): boolean {
  return a.dev === b.dev && a.ino === b.ino && (!a.btime || !b.btime || a.btime === b.btime);
}

/** What stands in the way of a path: the deny entry whose identity it or one of its folders has. */
export interface IdentityHit<T> { entry: T; at: string }

/**
 * The deny entry that the real path, or a folder above it, is (by identity), or undefined.
 * Each existing part of the path is stat'ed once.
 *
 * @example
 * await identityHit('/proj/conf2/secrets/key.txt', entries) // { entry: <conf/secrets>, at: '/proj/conf2/secrets' }
 */
export async function identityHit<T extends { ids?: Identity[] }>(real: string, entries: T[]): Promise<IdentityHit<T> | undefined> {
  const known = entries.filter((e) => e.ids?.length);
  if (!known.length) return undefined;
  for (let p = real; ; p = path.dirname(p)) {
    const s = await stat(p).catch(() => undefined);
    if (s) {
      const id = identityOf(s);
      const entry = known.find((e) => e.ids!.some((x) => sameIdentity(x, id)));
      if (entry) return { entry, at: p };
    }
    if (path.dirname(p) === p) return undefined;
  }
}

/** The recorded identities of deny entries, by the entry's resolved path. */
export type IdentityBook = Record<string, Identity[]>;

/** Reads the book (an empty one when there is none or it does not parse). */
export async function readBook(file: string): Promise<IdentityBook> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { entries?: IdentityBook };
    const out: IdentityBook = {};
    for (const [key, list] of Object.entries(parsed.entries ?? {})) {
      if (!Array.isArray(list)) continue;
      out[key] = list.filter((x): x is Identity => Number.isFinite(x?.dev) && Number.isFinite(x?.ino) && Number.isFinite(x?.btime));
    }
    return out;
  } catch {
    return {};
  }
}

/**
 * Merges what each entry is now (`current`, when it exists) with what it was at earlier starts,
 * newest first. Returns the merged book and whether it changed.
 */
export function mergeBook(book: IdentityBook, current: Record<string, Identity | undefined>): { book: IdentityBook; changed: boolean } {
  const out: IdentityBook = {};
  let changed = Object.keys(book).some((k) => !(k in current));
  for (const [key, now] of Object.entries(current)) {
    const before = book[key] ?? [];
    const list = now && !before.some((x) => sameIdentity(x, now)) ? [now, ...before].slice(0, MAX_PER_ENTRY) : before;
    if (list !== before) changed = true;
    if (list.length) out[key] = list;
  }
  return { book: out, changed };
}

/** Writes the book atomically (mode 0600: it tells where the denied files went). */
export async function writeBook(file: string, book: IdentityBook): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify({ version: 1, entries: book }, null, 1)}\n`, { mode: 0o600 });
  await rename(temp, file);
}
