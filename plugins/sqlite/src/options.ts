import { shape as s, validateOptions } from '@oryxos/schema-kit';
import { sqliteError } from './errors.ts';
import { parseUrl } from './url.ts';

/** Options of {@link sqlite}. */
export interface SqliteOptions {
  /**
   * Where the database lives. `file:` (relative paths resolve against the folder of
   * oryx.config.ts) uses the embedded driver; `libsql:`, `http(s):`, `ws(s):` a libsql server.
   * Default `file:.oryxos/oryx.db`.
   */
  url?: string;
  /** `auto` (default) picks by URL; `client` forces `@libsql/client` (also on `file:`); `libsql` the embedded driver. */
  driver?: 'auto' | 'libsql' | 'client';
  /** Token for a libsql server (sqld, Turso). Never written to logs or `Database.url`. */
  authToken?: string;
  /** How long one statement waits for another process's write lock. Default 5000. */
  busyTimeoutMs?: number;
  /** Lifetime of a session lease; renewed every third of it while a run holds it. Default 30000. */
  leaseMs?: number;
  /** How long `lock()` waits for another process's run on the same session. Default 120000. */
  lockTimeoutMs?: number;
  /** Retries of an append whose message positions another writer took. Default 5. */
  appendRetries?: number;
}

export type ResolvedSqliteOptions = Required<Omit<SqliteOptions, 'authToken'>> & { authToken?: string };

const shape = s.object({
  url: s.string({ min: 1 }).optional(),
  driver: s.literal('auto', 'libsql', 'client').optional(),
  authToken: s.string().optional(),
  busyTimeoutMs: s.integer({ min: 0 }).optional(),
  leaseMs: s.integer({ min: 1000 }).optional(),
  lockTimeoutMs: s.integer({ min: 0 }).optional(),
  appendRetries: s.integer({ min: 0 }).optional(),
});

export const DEFAULT_URL = 'file:.oryxos/oryx.db';

/**
 * Validates the factory's options at once; the error names the field and how to fix it.
 *
 * @example
 * resolveOptions({ busyTimeoutMs: -1 }); // throws ORYX_E_SQLITE_OPTIONS naming busyTimeoutMs
 */
export function resolveOptions(raw: unknown): ResolvedSqliteOptions {
  const o: SqliteOptions = validateOptions(shape, raw, { plugin: 'sqlite', code: 'ORYX_E_SQLITE_OPTIONS', example: 'sqlite({ url: "file:.oryxos/oryx.db" })' });
  const url = o.url ?? DEFAULT_URL;
  const target = parseUrl(url);
  if (o.driver === 'libsql' && target.kind !== 'file') {
    throw sqliteError('ORYX_E_SQLITE_OPTIONS', 'sqlite(): option driver "libsql" (the embedded driver) needs a file: url', {
      hint: 'Use driver: "client" (or leave it "auto") for a libsql server URL.', data: { field: 'driver' },
    });
  }
  return {
    url,
    driver: o.driver ?? 'auto',
    authToken: o.authToken,
    busyTimeoutMs: o.busyTimeoutMs ?? 5000,
    leaseMs: o.leaseMs ?? 30_000,
    lockTimeoutMs: o.lockTimeoutMs ?? 120_000,
    appendRetries: o.appendRetries ?? 5,
  };
}
