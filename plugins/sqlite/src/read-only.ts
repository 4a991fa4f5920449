import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

/**
 * How to open a database file this process may not write, or undefined to open it as usual.
 *
 * A WAL database opened the usual way creates its `-wal` and `-shm` files with the database
 * file's own mode: for a `chmod 444` file, two files that are read-only too, and (created by
 * root) owned by someone else, so the next process that may write cannot. A file nobody may
 * write (no write bit, whoever runs us: root writes anyway) or that this user cannot write is
 * therefore opened read-only instead: `mode=ro` when its `-wal` and `-shm` files are already
 * there (a writer is running, or left committed pages in them: they must be read), else
 * `immutable=1`, which reads the main file and creates nothing (it holds everything, as no WAL
 * is left). Every write then fails with ORYX_E_SQLITE_READONLY naming it.
 *
 * @example
 * const uri = await readOnlyUri('/srv/data/oryx.db'); // 'file:///srv/data/oryx.db?immutable=1' for a chmod 444 file
 */
export async function readOnlyUri(file: string): Promise<string | undefined> {
  let mode: number;
  try {
    mode = (await stat(file)).mode;
  } catch {
    return undefined; // not there yet: created as usual
  }
  const writable = (mode & 0o222) !== 0 && await access(file, constants.W_OK).then(() => true, () => false);
  if (writable) return undefined;
  const url = pathToFileURL(file).href;
  const [wal, shm] = await Promise.all([`${file}-wal`, `${file}-shm`].map((f) => stat(f).then((s) => s.size, () => -1)));
  return wal! > 0 && shm! >= 0 ? `${url}?mode=ro` : `${url}?immutable=1`;
}
