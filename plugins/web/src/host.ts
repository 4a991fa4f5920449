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
 * Refuses to serve a non-loopback host without a token (ORYX_E_WEB_NO_TOKEN).
 *
 * @example
 * assertSafeBind('0.0.0.0', process.env.ORYX_WEB_TOKEN); // throws when the variable is unset
 */
export function assertSafeBind(host: string, token: string | undefined): void {
  if (!token && !isLoopback(host)) {
    throw webError('ORYX_E_WEB_NO_TOKEN', `Refusing to listen on ${host} without a token: anyone who can reach it could run your agents`, {
      hint: 'Set ORYX_WEB_TOKEN (or web({ token })) to a long random secret, or bind 127.0.0.1.',
    });
  }
}
