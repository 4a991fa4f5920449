import path from 'node:path';
import { sqliteError } from './errors.ts';

/** Where a database URL points: a local file, or a libsql server. */
export type DatabaseTarget =
  | { kind: 'file'; path: string }
  | { kind: 'remote'; url: string };

const REMOTE = new Set(['libsql:', 'http:', 'https:', 'ws:', 'wss:']);

/**
 * Resolves the `url` option: a relative `file:` path is taken from `root` (the folder of
 * oryx.config.ts), so the database does not move with the working directory.
 *
 * @example
 * resolveTarget('file:.oryxos/oryx.db', '/srv/app'); // { kind: 'file', path: '/srv/app/.oryxos/oryx.db' }
 */
export function resolveTarget(url: string, root: string): DatabaseTarget {
  const parsed = parseUrl(url);
  return parsed.kind === 'file' ? { kind: 'file', path: path.resolve(root, parsed.path) } : parsed;
}

/** Checks the URL's form (at factory time); a `file:` path is returned as written. */
export function parseUrl(url: string): DatabaseTarget {
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0].toLowerCase();
  if (scheme === 'file:') {
    let rest = url.slice(5).replace(/[?#].*$/, '');
    if (rest.startsWith('//')) {
      // file://host/path: only an empty host or localhost means this machine
      const slash = rest.indexOf('/', 2);
      const host = rest.slice(2, slash === -1 ? undefined : slash);
      if (host && host.toLowerCase() !== 'localhost') {
        throw sqliteError('ORYX_E_SQLITE_OPTIONS', `sqlite(): option url names a remote host in a file: URL (${host})`, {
          hint: 'Use file:relative/path.db, file:/absolute/path.db or file:///absolute/path.db; a server needs libsql:// or https://.',
          data: { field: 'url' },
        });
      }
      rest = slash === -1 ? '' : rest.slice(slash);
    }
    const file = decodeURIComponent(rest);
    if (!file) {
      throw sqliteError('ORYX_E_SQLITE_OPTIONS', 'sqlite(): option url has no file path', {
        hint: 'Write it like file:.oryxos/oryx.db.', data: { field: 'url' },
      });
    }
    return { kind: 'file', path: file };
  }
  if (scheme && REMOTE.has(scheme)) return { kind: 'remote', url };
  throw sqliteError('ORYX_E_SQLITE_OPTIONS', `sqlite(): option url must start with file:, libsql:, http(s): or ws(s): (was ${JSON.stringify(displayUrl(url))})`, {
    hint: 'Use file:.oryxos/oryx.db for the embedded database, or libsql://host for a libsql server.',
    data: { field: 'url' },
  });
}

/**
 * The URL with credentials removed (user info and `authToken`), safe to log.
 *
 * @example
 * displayUrl('libsql://db.example?authToken=abc'); // 'libsql://db.example?authToken=***'
 */
export function displayUrl(url: string): string {
  return url
    .replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1')
    .replace(/([?&])(authToken|auth_token|token)=[^&#]*/gi, '$1$2=***');
}
