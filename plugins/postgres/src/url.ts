import { env, isEnvRef, type EnvRef } from '@oryxos/plugin-kit';
import { pgError } from './errors.ts';

/**
 * `env('ORYX_DATABASE_URL')` names the environment variable that holds the database URL, so the
 * config file never holds the password it carries: plugin-kit's `env()`, the same reference the
 * other plugins take.
 *
 * @example
 * postgres({ url: env('ORYX_DATABASE_URL') })
 */
export { env, isEnvRef, type EnvRef };

/** True for a `postgres:` or `postgresql:` URL. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * Checks a PostgreSQL URL's form: the scheme, and something after it.
 *
 * @example
 * checkUrl('postgres://oryx:secret@db.internal:5432/oryx', 'url'); // ok
 * checkUrl('mysql://x', 'url'); // throws ORYX_E_PG_OPTIONS
 */
export function checkUrl(url: string, field: string): string {
  if (!isPostgresUrl(url)) {
    throw pgError('ORYX_E_PG_OPTIONS', `postgres(): option ${field} must be a postgres:// or postgresql:// URL (was ${JSON.stringify(displayUrl(url))})`, {
      hint: 'Write it like postgres://user:password@host:5432/database, or pass env("ORYX_DATABASE_URL").', data: { field },
    });
  }
  try {
    new URL(url.replace(/^postgres(ql)?:/i, 'http:'));
  } catch {
    throw pgError('ORYX_E_PG_OPTIONS', `postgres(): option ${field} is not a valid URL (${JSON.stringify(displayUrl(url))})`, {
      hint: 'Percent-encode special characters in the user name and password (@ as %40, : as %3A).', data: { field },
    });
  }
  return url;
}

/**
 * The URL without its password, safe to log and show.
 *
 * @example
 * displayUrl('postgres://oryx:secret@db:5432/oryx'); // 'postgres://oryx:***@db:5432/oryx'
 */
export function displayUrl(url: string): string {
  return url
    .replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):[^/@]*@/i, '$1:***@')
    .replace(/([?&])(password|sslpassword)=[^&#]*/gi, '$1$2=***');
}

/** The password a URL carries (to register as a secret), if any. */
export function passwordOf(url: string): string | undefined {
  try {
    const pass = new URL(url.replace(/^postgres(ql)?:/i, 'http:')).password;
    return pass ? decodeURIComponent(pass) : undefined;
  } catch {
    return undefined;
  }
}
