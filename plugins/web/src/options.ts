import { shape as s, validateOptions } from '@oryxos/schema-kit';
import { webError } from './errors.ts';
import { MIN_TOKEN } from './token-file.ts';

/** Options of {@link web}. Every one is optional. */
export interface WebOptions {
  /** Interface to bind. Default `127.0.0.1`; a non-loopback host is refused with `auth: 'none'`. */
  host?: string;
  /** TCP port; 0 picks a free one. Default 8787. */
  port?: number;
  /**
   * Bearer token every route but `/health` requires. Default: `ORYX_WEB_TOKEN`, else a random
   * one generated on first start and kept in `<workspace>/web-token` (mode 0600).
   */
  token?: string;
  /**
   * `'token'` (default): every route but `/health` needs the bearer token. `'none'`: no token,
   * for throwaway local use only; `listen()` warns at every start and refuses a non-loopback host.
   */
  auth?: 'token' | 'none';
  /**
   * Host names (the `Host` header) the server answers to besides IP addresses, `localhost` and
   * the bind host, e.g. the name of a reverse proxy. `.example.com` also allows its subdomains.
   */
  allowedHosts?: string[];
  /** Largest user message (UTF-8 bytes); also bounds the raw body of the `/api` routes. Default 32 KiB. */
  maxMessageBytes?: number;
  /** Largest raw body of `POST /v1/chat/completions`, which carries the whole conversation. Default 1 MiB. */
  maxChatBodyBytes?: number;
  /** A run (queueing included) past this is aborted and answered 504. Default 60 000. */
  invokeTimeoutMs?: number;
  /** CORS: `false` (default, no headers), `true` (any origin) or the allowed origin(s). */
  cors?: boolean | string | string[];
  /** How long `oryx web` lets in-flight runs finish on SIGINT/SIGTERM before aborting them. Default 10 000. */
  shutdownGraceMs?: number;
  /** Serve the web console at `/` (and its files under `/assets/`). Default true. */
  console?: boolean;
}

/** Options with every default filled in. */
export interface ResolvedWebOptions extends Required<Omit<WebOptions, 'token'>> {
  /** The configured token (option or ORYX_WEB_TOKEN); unset when the token file is used or with `auth: 'none'`. */
  token?: string;
  /** Where {@link token} came from, for messages. */
  tokenFrom?: 'option' | 'ORYX_WEB_TOKEN';
}

const nonEmpty = s.string({ min: 1 });
const optionsShape = s.object({
  host: nonEmpty.optional(),
  port: s.integer({ min: 0, max: 65535 }).optional(),
  token: s.string().optional(),
  auth: s.literal('token', 'none').optional(),
  allowedHosts: s.array(nonEmpty).optional(),
  maxMessageBytes: s.integer({ min: 1, max: 16_777_216 }).optional(),
  maxChatBodyBytes: s.integer({ min: 1, max: 268_435_456 }).optional(),
  invokeTimeoutMs: s.integer({ above: 0 }).optional(),
  cors: s.union(s.boolean(), nonEmpty, s.array(nonEmpty)).optional(),
  shutdownGraceMs: s.integer({ min: 0 }).optional(),
  console: s.boolean().optional(),
});

export const DEFAULTS = Object.freeze({
  host: '127.0.0.1',
  port: 8787,
  maxMessageBytes: 32 * 1024,
  maxChatBodyBytes: 1024 * 1024,
  invokeTimeoutMs: 60_000,
  cors: false,
  shutdownGraceMs: 10_000,
  console: true,
  auth: 'token',
  allowedHosts: [],
});

/** A host name or a `.domain` suffix: no scheme, port or path. */
const HOST_NAME = /^\.?[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?$/i;

/**
 * Validates the options at once and fills defaults; the token falls back to ORYX_WEB_TOKEN
 * (which also applies with `auth: 'none'`: the safer reading of the two wins).
 * Throws ORYX_E_WEB_OPTIONS naming the field.
 *
 * @example
 * resolveOptions({ port: 9000 }).invokeTimeoutMs; // 60000
 */
export function resolveOptions(options: unknown, env: NodeJS.ProcessEnv = process.env): ResolvedWebOptions {
  const checked: WebOptions = validateOptions(optionsShape, options, { plugin: 'web', code: 'ORYX_E_WEB_OPTIONS', example: 'web({ port: 8787 })' });
  // The token, from the options or ORYX_WEB_TOKEN, is checked here so the error names its source.
  const token = checked.token ?? (env.ORYX_WEB_TOKEN || undefined);
  if (token !== undefined && token.length < MIN_TOKEN) {
    throw webError('ORYX_E_WEB_OPTIONS', `${checked.token === undefined ? 'ORYX_WEB_TOKEN' : 'web(): option token'} must be at least ${MIN_TOKEN} characters (was ${token.length})`, {
      field: 'token',
      hint: `Use a random token of at least ${MIN_TOKEN} characters, e.g. the output of \`openssl rand -hex 32\`.`,
    });
  }
  if (checked.auth === 'none' && checked.token !== undefined) {
    throw webError('ORYX_E_WEB_OPTIONS', "web(): options auth: 'none' and token contradict each other", {
      field: 'auth',
      hint: "Keep token (and drop auth: 'none'), or drop token for a server without auth.",
    });
  }
  const badHost = (checked.allowedHosts ?? []).findIndex((h) => !HOST_NAME.test(h));
  if (badHost !== -1) {
    throw webError('ORYX_E_WEB_OPTIONS', `web(): option allowedHosts.${badHost} (${JSON.stringify(checked.allowedHosts![badHost])}) is not a host name`, {
      field: `allowedHosts.${badHost}`,
      hint: "List bare host names as the Host header carries them, without scheme or port: 'oryx.example.com', or '.example.com' for its subdomains too.",
    });
  }
  const allowedHosts = (checked.allowedHosts ?? []).map((h) => h.toLowerCase().replace(/\.$/, ''));
  return {
    ...DEFAULTS,
    ...checked,
    allowedHosts,
    ...(token === undefined ? {} : { token, auth: 'token', tokenFrom: checked.token === undefined ? 'ORYX_WEB_TOKEN' : 'option' }),
  } as ResolvedWebOptions;
}
