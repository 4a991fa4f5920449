import type { DatabaseDriver } from '@oryxos/sql-store';
import { OryxError } from '@oryxos/provider-spec';

/**
 * The store plugin packages that open a database by URL (each exports a `driver`), asked in
 * order; loaded by name, only when a command needs one: the CLI imports no plugin statically.
 */
export const STORE_PACKAGES = ['@oryxos/plugin-sqlite', '@oryxos/plugin-postgres'];

/**
 * Opens a database by URL with the store plugin of its kind (`file:`, `libsql:` → sqlite,
 * `postgres:` → postgres), for the `oryx db` commands that work on a database outside the
 * config (`copy`). A relative `file:` path resolves against `root`.
 *
 * @example
 * const db = await openByUrl('file:.oryxos/oryx.db', process.cwd());
 */
export async function openByUrl(url: string, root: string): Promise<Awaited<ReturnType<DatabaseDriver['open']>>> {
  const shown = url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
  for (const name of STORE_PACKAGES) {
    let driver: DatabaseDriver | undefined;
    try {
      driver = ((await import(name)) as { driver?: DatabaseDriver }).driver;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') continue;
      throw error;
    }
    if (driver?.handles(url)) return driver.open(url, { root });
  }
  throw new OryxError('ORYX_E_DB_URL', `Not a database URL an installed store plugin opens: ${JSON.stringify(shown)}`, {
    hint: `Pass file:path/to/oryx.db, libsql://host, or postgres://user:password@host:5432/database, with the store plugin for it installed (${STORE_PACKAGES.join(', ')}).`,
  });
}
