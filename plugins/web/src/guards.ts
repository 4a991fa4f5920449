import type { Context, MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { webError } from './errors.ts';
import { hostAllowed, parseHost, type HostParts } from './host.ts';
import type { ResolvedWebOptions } from './options.ts';
import type { WebEnv } from './request-log.ts';
import { headerOf } from './incoming.ts';

// The checks that keep a browser from being used against the server: a web page the user
// visits can send requests to 127.0.0.1 (CSRF) and, through DNS rebinding, even read the
// answers. The README's "Threat model" says what each one stops and what it does not.

/** Methods that change nothing, so a cross-origin page may send them (it cannot read the answer without CORS). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The `Host` a request was sent to: the header, or the URL's host (`app.request()` sends none). */
function requestHost(c: Context<WebEnv>): string {
  return headerOf(c, 'host') ?? new URL(c.req.url).host;
}

/**
 * Answers 421 ORYX_E_WEB_BAD_HOST to a request whose `Host` is a name the server does not
 * answer to (see {@link hostAllowed}): that is what a DNS-rebinding page sends. `bindHost()`
 * is the host the server listens on (it may differ from the options with `listen({ host })`).
 */
export function hostGuard(bindHost: () => string, allowedHosts: readonly string[]): MiddlewareHandler<WebEnv> {
  return async function oryxHostGuard(c, next) {
    const host = requestHost(c);
    const parts = parseHost(host);
    if (!parts || !hostAllowed(parts.hostname, bindHost(), allowedHosts)) {
      throw webError('ORYX_E_WEB_BAD_HOST', `This server does not answer to the host ${JSON.stringify(host)}`);
    }
    return next();
  };
}

/**
 * Answers 403 ORYX_E_WEB_BAD_ORIGIN to a request that may change something (any method but
 * GET, HEAD and OPTIONS) sent by a web page of another origin: its `Origin` header is neither
 * the server's own origin (same host and port as `Host`) nor one of the `cors` origins.
 * Requests without `Origin` (curl, SDKs, other programs) are not browser requests and pass.
 * With `cors: true` (or `'*'`) every origin passes and the token is the only check.
 */
export function originGuard(cors: ResolvedWebOptions['cors']): MiddlewareHandler<WebEnv> {
  const allowed = new Set([cors].flat().filter((o) => typeof o === 'string').map((o) => o.toLowerCase().replace(/\/$/, '')));
  const any = cors === true || allowed.has('*');
  return async function oryxOriginGuard(c, next) {
    const origin = headerOf(c, 'origin');
    if (origin === undefined || any || SAFE_METHODS.has(c.req.method)) return next();
    if (allowed.has(origin.toLowerCase()) || sameOrigin(origin, parseHost(requestHost(c)))) return next();
    throw webError('ORYX_E_WEB_BAD_ORIGIN', `${c.req.method} ${c.req.path} from a page of origin ${origin} is refused: only this server's own origin and the cors origins may change anything`);
  };
}

function sameOrigin(origin: string, host: HostParts | undefined): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null` (sandboxed frames, file: pages) and anything unparsable
  }
  if (!host || (url.protocol !== 'http:' && url.protocol !== 'https:')) return false;
  const defaultPort = url.protocol === 'https:' ? 443 : 80;
  // The scheme is not compared: behind a TLS proxy the page is https and the Host the same.
  return url.hostname.replace(/^\[|\]$/g, '') === host.hostname && Number(url.port || defaultPort) === (host.port ?? defaultPort);
}

/**
 * Answers 415 ORYX_E_WEB_CONTENT_TYPE to a POST, PUT or PATCH whose body is not declared as
 * `application/json`. Every such route takes JSON, and the content types a page may send
 * across origins without a preflight (`text/plain`, forms, none) are exactly what this refuses.
 */
export function requireJson(): MiddlewareHandler<WebEnv> {
  return async function oryxRequireJson(c, next) {
    if (c.req.method !== 'POST' && c.req.method !== 'PUT' && c.req.method !== 'PATCH') return next();
    const declared = headerOf(c, 'content-type');
    const media = declared?.split(';')[0]!.trim().toLowerCase();
    if (media !== 'application/json') {
      throw webError('ORYX_E_WEB_CONTENT_TYPE', `${c.req.method} ${c.req.path} takes a JSON body, but ${declared ? `Content-Type is ${JSON.stringify(declared)}` : 'no Content-Type was sent'}`);
    }
    return next();
  };
}

/**
 * Security headers on every response, errors included: `nosniff`, `no-referrer`, frame denial
 * (`X-Frame-Options: DENY` and `frame-ancestors 'none'`), same-origin resource and opener
 * policies, and a Content-Security-Policy that lets nothing load (`default-src 'none'`) unless
 * the route set its own (the `/docs` page allows its one stylesheet by hash). No HSTS: the
 * server speaks plain HTTP.
 */
export function securityHeaders(): MiddlewareHandler<WebEnv> {
  return secureHeaders({
    xFrameOptions: 'DENY',
    strictTransportSecurity: false,
    // Headers for old browsers and plugins (IE, Flash) cost every response and protect nothing today.
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
    removePoweredBy: false,
    contentSecurityPolicy: { defaultSrc: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"], frameAncestors: ["'none'"] },
    overwrite: false,
  });
}
