/**
 * @oryxos/plugin-postgres: the session store and the `database` service on PostgreSQL, so
 * several `oryx web` processes and schedulers on several hosts share one database; and the
 * `oryx db` commands (migrate, status, copy) for both engines.
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
export { numberPlaceholders } from './placeholders.ts';
export { encodeText, decodeText } from './values.ts';
