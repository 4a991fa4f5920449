/**
 * The secret that authenticates the compiled-config cache: 32 random bytes in one file of the
 * user's state folder (`~/.local/state/oryxos/config-cache.key`, mode 0600, in a 0700 folder),
 * outside every project. Whoever can write the cache folder but not this file cannot make an
 * entry `oryx` will run.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The key file's name in the state folder. */
export const KEY_FILE = 'config-cache.key';

/**
 * The key in `file`, created first when `create` and there is none. Undefined when there is none
 * (and `create` is false), or when the file is not one only this user can read and write — a
 * symbolic link, another owner, group or other permissions, or not 64 hex digits: then nothing
 * is authenticated, so nothing is taken from the cache (the file is left as it is; remove it to
 * get a new key).
 *
 * @example
 * await cacheKeyBytes('/home/me/.local/state/oryxos/config-cache.key', true); // Uint8Array(32)
 */
export async function cacheKeyBytes(file: string, create: boolean): Promise<Uint8Array | undefined> {
  const found = readKey(file);
  if (found !== 'missing' || !create) return found === 'missing' ? undefined : found;
  try {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    // node:crypto only here, the first time: read commands never load it.
    const { randomBytes } = await import('node:crypto');
    await writeFile(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined; // a read-only home: no cache
  }
  const made = readKey(file);
  return made === 'missing' ? undefined : made;
}

// Synchronous: four system calls at every start are cheaper than a FileHandle's promises.
function readKey(file: string): Uint8Array | undefined | 'missing' {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : undefined;
  }
  try {
    const s = fstatSync(fd);
    const uid = process.getuid?.();
    if (!s.isFile() || (uid !== undefined && (s.uid !== uid || (s.mode & 0o077) !== 0))) return undefined;
    const text = readFileSync(fd, 'utf8').trim();
    return /^[0-9a-f]{64}$/.test(text) ? Uint8Array.from(Buffer.from(text, 'hex')) : undefined;
  } finally {
    closeSync(fd);
  }
}
