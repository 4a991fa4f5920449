import type { OryxError } from '@oryxos/provider-spec';
import { bearerError } from './auth.ts';
import { webError } from './errors.ts';
import { hostAllowed, parseHost, type HostParts } from './host.ts';
import type { ResolvedWebOptions } from './options.ts';

// The checks every request passes before a route sees it, as plain functions of what a request
// carries (method, path, a few headers): the Node front (`front.ts`) runs them on Node's parsed
// request, the Hono middleware (`admission.ts`) on a request that did not come through it
// (`app.request()`), so both entry points share one implementation. They keep a browser from
// being used against the server: a web page the user visits can send requests to 127.0.0.1
// (CSRF) and, through DNS rebinding, even read the answers. The README's "Threat model" says
// what each one stops and what it does not.

/** What the checks read of a request. */
export interface RequestFacts {
  method: string;
  /** The path as routed (decoded), without the query. */
  path: string;
  /** The `Host` the request was sent to (the header, or the URL's host without one). */
  host: string;
  /** A request header by its lower-case name. */
  header(name: 'origin' | 'authorization' | 'content-type'): string | undefined;
}

/** What the checks need of the server; each may change while it serves. */
export interface GateSource {
  /** The host the server listens on, which answers to its own name. */
  bindHost(): string;
  /** True once a shutdown has begun. */
  closing(): boolean;
}

/** Methods that change nothing, so a cross-origin page may send them (it cannot read the answer without CORS). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Security headers on every response, errors included: `nosniff`, `no-referrer`, frame denial
 * (`X-Frame-Options: DENY` and `frame-ancestors 'none'`), same-origin resource and opener
 * policies, and a Content-Security-Policy that lets nothing load (`default-src 'none'`) unless
 * the route set its own (the `/docs` page allows its one stylesheet by hash). No HSTS: the
 * server speaks plain HTTP. A route's own value of any of them wins.
 */
export const SECURITY_HEADERS: readonly (readonly [string, string])[] = Object.freeze([
  ['content-security-policy', "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"],
  ['cross-origin-opener-policy', 'same-origin'],
  ['cross-origin-resource-policy', 'same-origin'],
  ['referrer-policy', 'no-referrer'],
  ['x-content-type-options', 'nosniff'],
  ['x-frame-options', 'DENY'],
] as const);

/**
 * The request checks, in the order they answer: the Host check and the shutdown gate
 * ({@link entryError}, before anything else, CORS included), then the Origin check, bearer auth
 * and the JSON content type ({@link accessError}, after CORS has answered preflights).
 */
export class Gate {
  private readonly allowedOrigins: Set<string>;
  private readonly anyOrigin: boolean;
  /** The last `Host` header allowed, and the bind host it was allowed for: most requests repeat it. */
  private lastHost?: { header: string; bindHost: string };

  constructor(private readonly options: ResolvedWebOptions, private readonly source: GateSource, private readonly isOpen: (path: string) => boolean) {
    const cors = options.cors;
    this.allowedOrigins = new Set([cors].flat().filter((o) => typeof o === 'string').map((o) => o.toLowerCase().replace(/\/$/, '')));
    this.anyOrigin = cors === true || this.allowedOrigins.has('*');
  }

  /**
   * 421 ORYX_E_WEB_BAD_HOST for a `Host` that is a name the server does not answer to (see
   * {@link hostAllowed}): that is what a DNS-rebinding page sends, and it must not even learn
   * that the server is up. Then 503 ORYX_E_WEB_SHUTTING_DOWN once a shutdown has begun.
   */
  entryError(facts: RequestFacts): OryxError | undefined {
    const bindHost = this.source.bindHost();
    const last = this.lastHost;
    if (last === undefined || last.header !== facts.host || last.bindHost !== bindHost) {
      const parts = parseHost(facts.host);
      if (!parts || !hostAllowed(parts.hostname, bindHost, this.options.allowedHosts)) {
        return webError('ORYX_E_WEB_BAD_HOST', `This server does not answer to the host ${JSON.stringify(facts.host)}`);
      }
      this.lastHost = { header: facts.host, bindHost };
    }
    if (this.source.closing()) return webError('ORYX_E_WEB_SHUTTING_DOWN', 'The server is shutting down');
    return undefined;
  }

  /**
   * The checks after CORS, for a request whose path needs the token unless {@link isOpen}:
   * 403 ORYX_E_WEB_BAD_ORIGIN for a change sent by a page of another origin, 401
   * ORYX_E_WEB_UNAUTHORIZED without the right bearer token (`expected` undefined: `auth:
   * 'none'`), 415 ORYX_E_WEB_CONTENT_TYPE for a body not declared as JSON.
   */
  accessError(facts: RequestFacts, expected: string | undefined): OryxError | undefined {
    const origin = this.originError(facts);
    if (origin) return origin;
    if (expected !== undefined && !this.isOpen(facts.path)) {
      const auth = bearerError(facts.header('authorization'), expected);
      if (auth) return auth;
    }
    return jsonError(facts);
  }

  /** Whether a request that passed {@link accessError} was let through by its token (it then acts as the operator). */
  authenticated(facts: RequestFacts): boolean {
    return !this.isOpen(facts.path);
  }

  /**
   * A request that may change something (any method but GET, HEAD and OPTIONS) sent by a web
   * page of another origin: its `Origin` header is neither the server's own origin (same host
   * and port as `Host`) nor one of the `cors` origins. Requests without `Origin` (curl, SDKs,
   * other programs) are not browser requests and pass. With `cors: true` (or `'*'`) every
   * origin passes and the token is the only check.
   */
  private originError(facts: RequestFacts): OryxError | undefined {
    const origin = facts.header('origin');
    if (origin === undefined || this.anyOrigin || SAFE_METHODS.has(facts.method)) return undefined;
    if (this.allowedOrigins.has(origin.toLowerCase()) || sameOrigin(origin, parseHost(facts.host))) return undefined;
    return webError('ORYX_E_WEB_BAD_ORIGIN', `${facts.method} ${facts.path} from a page of origin ${origin} is refused: only this server's own origin and the cors origins may change anything`);
  }
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
 * A POST, PUT or PATCH whose body is not declared as `application/json`. Every such route
 * takes JSON, and the content types a page may send across origins without a preflight
 * (`text/plain`, forms, none) are exactly what this refuses.
 */
function jsonError(facts: RequestFacts): OryxError | undefined {
  if (facts.method !== 'POST' && facts.method !== 'PUT' && facts.method !== 'PATCH') return undefined;
  const declared = facts.header('content-type');
  if (declared === 'application/json') return undefined;
  const media = declared?.split(';')[0]!.trim().toLowerCase();
  if (media === 'application/json') return undefined;
  return webError('ORYX_E_WEB_CONTENT_TYPE', `${facts.method} ${facts.path} takes a JSON body, but ${declared ? `Content-Type is ${JSON.stringify(declared)}` : 'no Content-Type was sent'}`);
}
