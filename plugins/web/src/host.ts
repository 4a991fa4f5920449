import { isIP } from 'node:net';
import { webError } from './errors.ts';

/**
 * True for hosts only this machine can reach: localhost, 127.0.0.0/8, ::1.
 *
 * @example
 * isLoopback('127.0.0.1'); // true
 * isLoopback('0.0.0.0');   // false: every interface
 */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(h);
  return false;
}

/**
 * The URL a server bound to `host:port` is reached at.
 *
 * @example
 * urlFor('::1', 8787); // 'http://[::1]:8787'
 */
export function urlFor(host: string, port: number): string {
  const h = host.replace(/^\[|\]$/g, '');
  return `http://${isIP(h) === 6 ? `[${h}]` : h}:${port}`;
}

/**
 * Refuses to serve a non-loopback host without auth (ORYX_E_WEB_NO_TOKEN): with the default
 * `auth: 'token'` there is always a token (configured or generated), so only `auth: 'none'`
 * is refused.
 *
 * @example
 * assertSafeBind('0.0.0.0', 'none'); // throws
 */
export function assertSafeBind(host: string, auth: 'token' | 'none'): void {
  if (auth === 'none' && !isLoopback(host)) {
    throw webError('ORYX_E_WEB_NO_TOKEN', `Refusing to listen on ${host} with auth: 'none': anyone who can reach it could run your agents`);
  }
}

/** The parts of a `Host` header (or of an origin's host). */
export interface HostParts { hostname: string; port?: number }

/**
 * Parses a `Host` header: `name[:port]` or `[ipv6][:port]`. The name is lowercased, without
 * brackets or a trailing dot; anything else (user info, paths, spaces) gives undefined.
 *
 * @example
 * parseHost('[::1]:8787'); // { hostname: '::1', port: 8787 }
 */
export function parseHost(header: string): HostParts | undefined {
  const m = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9._-]+))(?::(\d{1,5}))?$/i.exec(header);
  if (!m) return undefined;
  const hostname = (m[1] ?? m[2]!).toLowerCase().replace(/\.$/, '');
  if (m[1] !== undefined && isIP(hostname) !== 6) return undefined;
  return m[3] === undefined ? { hostname } : { hostname, port: Number(m[3]) };
}

/**
 * Whether a server bound to `bindHost` answers to `hostname` (from the `Host` header). A DNS
 * rebinding page reaches the server under the attacker's own domain name, so names are
 * refused unless they are `localhost`, the bind host or listed in `allowedHosts` (`.domain`
 * entries also match subdomains). IP addresses are always answered: no DNS is involved, so
 * they cannot be rebound.
 *
 * @example
 * hostAllowed('evil.example', '127.0.0.1', []); // false
 * hostAllowed('127.0.0.1', '127.0.0.1', []);    // true
 */
export function hostAllowed(hostname: string, bindHost: string, allowedHosts: readonly string[]): boolean {
  if (isIP(hostname) !== 0 || hostname === 'localhost') return true;
  if (hostname === bindHost.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '')) return true;
  return allowedHosts.some((h) => hostname === h || (h.startsWith('.') && (hostname === h.slice(1) || hostname.endsWith(h))));
}
