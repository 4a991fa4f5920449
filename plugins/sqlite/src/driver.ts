import type { DatabaseDriver } from '@oryxos/sql-store';
import { openDatabase } from './database.ts';
import { resolveTarget } from './url.ts';

/**
 * This package's databases by URL, outside a kernel (`oryx db copy`): a `file:` path (relative
 * to the config's folder) through the embedded driver, a libsql server through `@libsql/client`.
 *
 * @example
 * const db = await driver.open('file:.oryxos/oryx.db', { root: process.cwd() });
 */
export const driver: DatabaseDriver = {
  name: 'sqlite',
  handles: (url) => /^(file|libsql|https?|wss?):/i.test(url),
  async open(url, { root }) {
    const target = resolveTarget(url, root);
    return openDatabase(target, { driver: target.kind === 'file' ? 'libsql' : 'client', busyTimeoutMs: 5000 });
  },
};
