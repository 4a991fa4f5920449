import { shape as s, validateOptions } from '@oryxos/schema-kit';
import { pgError } from './errors.ts';
import { checkUrl, isEnvRef, type EnvRef } from './url.ts';

/** TLS settings passed to the client unchanged: a mode, or Node's `tls.connect` options (ca, cert, key, servername, …). */
export type SslOption = boolean | 'require' | 'allow' | 'prefer' | 'verify-full' | Record<string, unknown>;

/** Options of {@link postgres}. */
export interface PostgresOptions {
  /** `postgres://user:password@host:5432/database`, or `env('ORYX_DATABASE_URL')` to read it from the environment at start. */
  url: string | EnvRef;
  /** Connections this process keeps open at most. Default 10. */
  poolSize?: number;
  /** The server cancels a statement running longer than this (ms; 0: never). Default 30000. */
  statementTimeoutMs?: number;
  /** How long opening a connection may take (ms). Default 10000. */
  connectTimeoutMs?: number;
  /** TLS: `true`, `'require'`, `'verify-full'`, … or Node's tls.connect options; passed through. Default: what the URL says (`?sslmode=`), else none. */
  ssl?: SslOption;
  /** `application_name` the server shows in pg_stat_activity. Default `oryxos`. */
  applicationName?: string;
  /** Lifetime of a session lease; renewed every third of it while a run holds it. Default 30000. */
  leaseMs?: number;
  /** How long a run waits for another process's run on the same session. Default 120000. */
  lockTimeoutMs?: number;
  /** Retries of an append whose message positions another writer took. Default 5. */
  appendRetries?: number;
  /** Apply pending migrations at start (default). `false`: refuse to start until `oryx db migrate` has run. */
  autoMigrate?: boolean;
}

export interface ResolvedPostgresOptions extends Required<Omit<PostgresOptions, 'url' | 'ssl'>> {
  url: string | EnvRef;
  ssl?: SslOption;
}

const anObject = s.custom<Record<string, unknown>>('an object', (v) => typeof v === 'object' && v !== null);
const shape = s.object({
  url: s.union(s.string({ min: 1 }), anObject),
  poolSize: s.integer({ min: 1, max: 1000 }).optional(),
  statementTimeoutMs: s.integer({ min: 0 }).optional(),
  connectTimeoutMs: s.integer({ min: 100 }).optional(),
  ssl: s.union(s.boolean(), s.literal('require', 'allow', 'prefer', 'verify-full'), anObject).optional(),
  applicationName: s.string({ min: 1 }).optional(),
  leaseMs: s.integer({ min: 1000 }).optional(),
  lockTimeoutMs: s.integer({ min: 0 }).optional(),
  appendRetries: s.integer({ min: 0 }).optional(),
  autoMigrate: s.boolean().optional(),
});

/**
 * Validates the factory's options at once; the error names the field and how to fix it.
 *
 * @example
 * resolveOptions({ url: 'postgres://db/oryx', poolSize: 0 }); // throws ORYX_E_PG_OPTIONS naming poolSize
 */
export function resolveOptions(raw: unknown): ResolvedPostgresOptions {
  const o = validateOptions(shape, raw, {
    plugin: 'postgres', code: 'ORYX_E_PG_OPTIONS', example: 'postgres({ url: env("ORYX_DATABASE_URL") })',
  }) as PostgresOptions;
  if (typeof o.url === 'string') checkUrl(o.url, 'url');
  else if (!isEnvRef(o.url)) {
    throw pgError('ORYX_E_PG_OPTIONS', 'postgres(): option url must be a postgres:// URL or env("NAME")', { data: { field: 'url' } });
  }
  return {
    url: o.url,
    poolSize: o.poolSize ?? 10,
    statementTimeoutMs: o.statementTimeoutMs ?? 30_000,
    connectTimeoutMs: o.connectTimeoutMs ?? 10_000,
    ...(o.ssl !== undefined ? { ssl: o.ssl } : {}),
    applicationName: o.applicationName ?? 'oryxos',
    leaseMs: o.leaseMs ?? 30_000,
    lockTimeoutMs: o.lockTimeoutMs ?? 120_000,
    appendRetries: o.appendRetries ?? 5,
    autoMigrate: o.autoMigrate ?? true,
  };
}

/**
 * The URL itself: read from its environment variable when the option names one.
 *
 * @example
 * resolveUrl(env('ORYX_DATABASE_URL')); // process.env.ORYX_DATABASE_URL, checked
 */
export function resolveUrl(url: string | EnvRef): string {
  if (typeof url === 'string') return url;
  const value = process.env[url.env];
  if (!value) {
    throw pgError('ORYX_E_PG_OPTIONS', `postgres(): option url reads the environment variable ${url.env}, which is not set`, {
      hint: `Set ${url.env}=postgres://user:password@host:5432/database in the environment of every OryxOS process.`, data: { field: 'url' },
    });
  }
  return checkUrl(value, `url (from ${url.env})`);
}
