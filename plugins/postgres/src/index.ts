/**
 * @oryxos/plugin-postgres: the store kit's sessions, run records and the `database` service on
 * PostgreSQL, so several `oryx web` processes and schedulers on several hosts share one
 * database. `oryx db status | migrate | copy` (the CLI's) work on it as on SQLite.
 *
 * @example
 * import postgres, { env } from '@oryxos/plugin-postgres';
 * export default defineConfig({ plugins: [postgres({ url: env('ORYX_DATABASE_URL') })] });
 */
export { default, default as postgres } from './plugin.ts';
export { ERROR_CODES, type PgErrorCode } from './errors.ts';
export { resolveOptions, type PostgresOptions, type SslOption } from './options.ts';
export { env, displayUrl, type EnvRef } from './url.ts';
export { openPostgres, type OpenPostgres, type PgConnectOptions } from './database.ts';
export { MIGRATIONS, SCHEMA_VERSION, migrate, recordedVersions } from './migrations.ts';
export { driver } from './driver.ts';
export { numberPlaceholders } from './placeholders.ts';
export { encodeText, decodeText } from './values.ts';
