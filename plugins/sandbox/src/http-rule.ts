import { isIP } from 'node:net';
import { isNonPublicAddress } from './ip.ts';

/** One parsed `http.allow` entry. */
export interface HttpEntry {
  source: string;
  /** Undefined: http and https. */
  scheme?: 'http' | 'https';
  /** Undefined: the scheme's default port (80, 443). */
  port?: number;
  /** `exact`: `host` as WHATWG normalizes it; `suffix`: `*.host`; `any`: `*`. */
  match: 'exact' | 'suffix' | 'any';
  host: string;
}

const DEFAULT_PORT = { http: 80, https: 443 } as const;
const LOOKUP_TIMEOUT_MS = 5000;

/** Lower-cases, punycodes and normalizes IP spellings (`127.1` → `127.0.0.1`) like a URL parser would. */
function normalizeHost(host: string): string | undefined {
  try {
    const url = new URL(`http://${host}/`);
    return url.port === '' && url.pathname === '/' && url.hostname ? url.hostname : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Parses `host`, `*.domain`, `*`, `host:port` or `scheme://host[:port]`. Returns the entry or
 * what is wrong with it.
 */
export function parseHttpEntry(source: string): HttpEntry | string {
  const shape = 'must be a host (api.github.com), a wildcard (*.example.com) or scheme://host:port (http://127.0.0.1:8080)';
  let rest = source.trim();
  let scheme: HttpEntry['scheme'];
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(rest);
  if (m) {
    const s = m[1]!.toLowerCase();
    if (s !== 'http' && s !== 'https') return `uses scheme "${s}"; only http and https can be allowed`;
    scheme = s;
    rest = rest.slice(m[0].length);
  }
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  if (!rest || /[/?#@\\\s]/.test(rest)) return `${shape} (no path, query or user info)`;
  let host = rest;
  let port: number | undefined;
  const portMatch = /^(\[[^\]]*\]|[^:]*):(\d+)$/.exec(rest);
  if (portMatch) {
    host = portMatch[1]!;
    port = Number(portMatch[2]);
    if (!Number.isInteger(port) || port < 1 || port > 65535) return `has port ${portMatch[2]}, which is not between 1 and 65535`;
  } else if (rest.includes(':') && !rest.startsWith('[')) {
    return shape;
  }
  if (host === '*') return { source, scheme, port, match: 'any', host: '*' };
  const wildcard = host.startsWith('*.');
  const bare = wildcard ? host.slice(2) : host;
  if (bare.includes('*')) return `${shape}: "*" may only stand alone or start the host as "*."`;
  const normal = normalizeHost(bare);
  if (!normal) return `has host "${bare}", which is not a valid host name`;
  if (normal.endsWith('.')) return `has a trailing dot in "${bare}"; write the host without it`;
  if (wildcard && (normal.startsWith('[') || isIP(normal))) return 'puts a wildcard on an IP address; list IP addresses exactly';
  return { source, scheme, port, match: wildcard ? 'suffix' : 'exact', host: normal };
}

/**
 * The addresses a host name resolves to, as `dns.lookup` gives them (the hosts file too), in
 * at most 5 s. Throws the resolver's error.
 */
export async function resolveHost(host: string): Promise<string[]> {
  const { lookup } = await import('node:dns/promises'); // loaded by the first lookup, not at start
  return withTimeout(lookup(host, { all: true, verbatim: true }).then((list) => list.map((a) => a.address)), LOOKUP_TIMEOUT_MS);
}

/**
 * Checks a URL against the entries. Returns the reason for a denial, or undefined. Hosts
 * matched only by a wildcard must resolve to public addresses only: `addresses`, when the
 * caller resolved the host itself and will connect to one of them (resolve once: no second
 * lookup can answer differently), else the answer of a lookup made here.
 */
export async function checkHttp(entries: HttpEntry[], raw: unknown, method: unknown, given?: readonly string[]): Promise<string | undefined> {
  if (typeof raw !== 'string') return 'the http action has no url string';
  if (method !== undefined && (typeof method !== 'string' || !/^[A-Za-z]+$/.test(method))) return `method ${JSON.stringify(method)} is not an HTTP method`;
  let url: URL;
  try { url = new URL(raw); } catch { return `${JSON.stringify(raw)} is not a valid absolute URL`; }
  const scheme = url.protocol.slice(0, -1);
  if (scheme !== 'http' && scheme !== 'https') return `scheme "${scheme}:" is not allowed (only http and https)`;
  if (url.username || url.password) return `URLs with user info before the host ("user@host") are not allowed: ${url.href}`;
  const host = url.hostname;
  if (!host) return `${JSON.stringify(raw)} has no host`;
  if (host.endsWith('.')) return `host "${host}" ends with a dot; write it without the trailing dot`;
  const port = url.port ? Number(url.port) : DEFAULT_PORT[scheme];
  const isLiteral = host.startsWith('[') || isIP(host) !== 0;
  const where = `${scheme}://${url.host}`;

  const fits = entries.filter((e) => (!e.scheme || e.scheme === scheme) && (e.port ?? DEFAULT_PORT[scheme]) === port);
  if (fits.some((e) => e.match === 'exact' && e.host === host)) return undefined;
  const wild = isLiteral ? undefined : fits.find((e) => e.match === 'any' || (e.match === 'suffix' && host.endsWith(`.${e.host}`)));
  if (!wild) {
    const sameHost = entries.filter((e) => e.match === 'exact' && e.host === host);
    if (sameHost.length) {
      const allowed = sameHost.map((e) => `${e.scheme ?? 'http(s)'}://${e.host}:${e.port ?? (e.scheme ? DEFAULT_PORT[e.scheme] : '80/443')}`);
      return `${where} is not allowed: ${host} is allowed only as ${allowed.join(', ')}`;
    }
    if (isLiteral) return `${where} is not allowed: IP addresses must be listed exactly in http.allow`;
    return `host ${host} (port ${port}) is not on the http allow-list`;
  }
  let addresses: readonly string[];
  if (given) {
    const bad = given.find((a) => typeof a !== 'string' || !isIP(a.replace(/%.*$/, '')));
    if (bad !== undefined) return `the http action gives ${JSON.stringify(bad)} as an address of ${host}, which is not an IP address`;
    addresses = given;
  } else {
    try {
      addresses = await resolveHost(host);
    } catch (error) {
      return `host ${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}), so its addresses cannot be checked`;
    }
  }
  if (!addresses.length) return `host ${host} resolved to no address`;
  const inner = addresses.find(isNonPublicAddress);
  if (inner) {
    return `host ${host} resolves to ${inner}, a private, loopback or link-local address; `
      + `it matched only the wildcard "${wild.source}", so list the host itself in http.allow to reach it`;
  }
  return undefined;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`lookup timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
