import type { DatabaseDriver } from '@oryxos/sql-store';
import { openPostgres } from './database.ts';
import { isPostgresUrl } from './url.ts';

/**
 * This package's databases by URL, outside a kernel (`oryx db copy`): a `postgres://` URL, one
 * connection pool of two, no statement timeout (a copy may take a while).
 *
 * @example
 * const db = await driver.open(process.env.ORYX_DATABASE_URL!, { root: process.cwd() });
 */
export const driver: DatabaseDriver = {
  name: 'postgres',
  handles: (url) => isPostgresUrl(url),
  open: (url) => openPostgres({ url, poolSize: 2, statementTimeoutMs: 0, connectTimeoutMs: 10_000, applicationName: 'oryx db copy' }),
};
