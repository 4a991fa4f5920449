import { randomBytes } from 'node:crypto';
import { OryxError, errorMessage, isOryxError } from '@oryxos/provider-spec';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpOAuthConfig } from '../options.ts';
import { CrossAppProvider } from './cross-app.ts';
import { Loopback } from './loopback.ts';
import type { StoredAuth, TokenStore } from './token-store.ts';

/**
 * How a browser sign-in reaches the person: it gets the authorization URL to show (print it,
 * open a browser). The loopback redirect brings the answer back; this only has to show it.
 */
export type Authorizer = (request: { server: string; url: URL }) => void | Promise<void>;

export interface OAuthSessionOptions {
  server: string;
  url: string;
  config?: McpOAuthConfig;
  store: TokenStore;
  /** Fetch for the OAuth requests themselves (discovery, registration, tokens): each one passes the sandbox. */
  oauthFetch: FetchLike;
  /** The way to reach a person now, if any (`oryx mcp login`); without one a needed sign-in is an error saying how to sign in. */
  authorizer: () => Authorizer | undefined;
  clientVersion: string;
  /** How long a browser sign-in may take. */
  signInTimeoutMs?: number;
}

/** A redirect URI placeholder for flows that never redirect (a refresh): the SDK reads one to decide the flow is interactive. */
const NO_REDIRECT = 'http://127.0.0.1/callback';
/** Renew a token this long before it expires, so a call never races its expiry. */
const EXPIRY_MARGIN_MS = 60_000;
/** Authorization rounds for one request: the first 401, then at most one step-up per new challenge. */
const MAX_ROUNDS = 3;

/**
 * OAuth 2.1 for one remote MCP server, as the MCP authorization spec (2025-06-18, 2025-11-25)
 * describes, on the SDK's client helpers (`auth()`: RFC 9728 protected-resource discovery
 * with its well-known fallbacks, RFC 8414 / OIDC authorization-server discovery incl. the
 * 2025-03-26 fallbacks, RFC 7591 registration or a client ID metadata document, PKCE S256,
 * the RFC 8707 `resource`, refresh). What this adds: tokens kept per server in a 0600 file
 * outside the project, a loopback redirect, scopes from the challenge (and step-up on 403
 * `insufficient_scope`, bounded), refresh before expiry, revocation at logout, and a clear
 * error instead of a browser when no person is there.
 *
 * @example
 * const session = new OAuthSession({ server: 'notion', url, store, oauthFetch, authorizer: () => undefined, clientVersion: '0.1.0' });
 * const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: session.wrap(fetch) });
 */
export class OAuthSession {
  private readonly provider: OAuthClientProvider & { ready(): Promise<void> };
  private authorizing?: Promise<void>;
  /** Set once a request needed authorization that could not be had; for the status line. */
  needsLogin = false;

  constructor(private readonly o: OAuthSessionOptions) {
    const grant = o.config?.grant;
    this.provider = grant === 'client_credentials' ? machineProvider(o)
      : grant === 'cross_app_access' ? new CrossAppProvider({ server: o.server, url: o.url, config: o.config!, oauthFetch: o.oauthFetch })
        : new StoredProvider(o);
  }

  /** The grant this server uses. */
  get grant(): NonNullable<McpOAuthConfig['grant']> {
    return this.o.config?.grant ?? 'authorization_code';
  }

  /** Whether tokens are stored for this server. */
  async signedIn(): Promise<boolean> {
    await this.provider.ready();
    return !!(await this.provider.tokens());
  }

  /**
   * A fetch that sends the server's access token, renews it before it expires, and answers a
   * 401 (or a 403 `insufficient_scope`) by authorizing, then sends the request again. The same
   * challenge twice in a row is given up on (the step-up retry limit).
   */
  wrap(next: FetchLike): FetchLike {
    return async (input, init) => {
      await this.renewIfExpiring();
      let response = await this.send(next, input, init);
      let answered: string | undefined;
      for (let round = 0; round < MAX_ROUNDS; round++) {
        if (response.status !== 401 && response.status !== 403) break;
        const challenge = response.headers.get('www-authenticate') ?? '';
        const { extractWWWAuthenticateParams } = await import('@modelcontextprotocol/sdk/client/auth.js');
        const params = extractWWWAuthenticateParams(response);
        if (response.status === 403 && params.error !== 'insufficient_scope') break;
        if (challenge === answered) break;
        answered = challenge;
        await response.body?.cancel().catch(() => {});
        await this.authorize({ resourceMetadataUrl: params.resourceMetadataUrl, scope: await this.scopeFor(params.scope, response.status === 403) });
        response = await this.send(next, input, init);
      }
      return response;
    };
  }

  /** Runs the authorization now (`oryx mcp login`), whatever is stored; the person must be reachable. */
  async login(options: { resourceMetadataUrl?: URL; scope?: string } = {}): Promise<void> {
    await this.authorize({ ...options, scope: options.scope ?? await this.scopeFor(undefined, false) });
  }

  /**
   * Revokes the stored tokens where the authorization server offers revocation (RFC 7009),
   * then deletes them. Returns what was done.
   */
  async logout(): Promise<{ removed: boolean; revoked: number; revocationError?: string }> {
    const stored = await this.o.store.read(this.o.url);
    let revoked = 0;
    let revocationError: string | undefined;
    const endpoint = (stored?.discovery?.authorizationServerMetadata as { revocation_endpoint?: string } | undefined)?.revocation_endpoint;
    const client = stored?.client ?? (this.o.config?.clientId ? { client_id: this.o.config.clientId, client_secret: this.o.config.clientSecret } : undefined);
    if (endpoint && stored?.tokens && client) {
      for (const [token, hint] of [[stored.tokens.refresh_token, 'refresh_token'], [stored.tokens.access_token, 'access_token']] as const) {
        if (!token) continue;
        const body = new URLSearchParams({ token, token_type_hint: hint });
        const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded' });
        if (client.client_secret) headers.set('authorization', `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`);
        else body.set('client_id', client.client_id);
        try {
          const response = await this.o.oauthFetch(endpoint, { method: 'POST', headers, body: body.toString() });
          await response.body?.cancel().catch(() => {});
          if (response.ok) revoked++;
          else revocationError = `the revocation endpoint answered HTTP ${response.status}`;
        } catch (error) {
          revocationError = errorMessage(error);
        }
      }
    }
    const removed = await this.o.store.remove(this.o.url);
    this.needsLogin = false;
    return { removed, revoked, ...(revocationError ? { revocationError } : {}) };
  }

  private async send(next: FetchLike, input: string | URL, init?: RequestInit): Promise<Response> {
    await this.provider.ready();
    const tokens = await this.provider.tokens();
    if (!tokens) return next(input, init);
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${tokens.access_token}`);
    return next(input, { ...init, headers });
  }

  /** Scopes to ask for: the configured ones, the challenge's, and for a step-up those already granted. */
  private async scopeFor(challenge: string | undefined, stepUp: boolean): Promise<string | undefined> {
    const granted = stepUp ? (await this.provider.tokens())?.scope : undefined;
    const all = new Set([...(this.o.config?.scopes ?? []), ...(challenge?.split(/\s+/) ?? []), ...(granted?.split(/\s+/) ?? [])].filter(Boolean));
    return all.size ? [...all].join(' ') : undefined;
  }

  private async renewIfExpiring(): Promise<void> {
    if (!(this.provider instanceof StoredProvider) || !this.provider.expiring()) return;
    try {
      await this.authorize({});
    } catch {
      // A refresh that fails now is retried on the 401 the request gets.
    }
  }

  /** One authorization at a time per server: requests that arrive meanwhile wait for it. */
  private authorize(options: { resourceMetadataUrl?: URL; scope?: string }): Promise<void> {
    this.authorizing ??= this.runAuthorization(options).finally(() => { this.authorizing = undefined; });
    return this.authorizing;
  }

  private async runAuthorization(options: { resourceMetadataUrl?: URL; scope?: string }): Promise<void> {
    const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
    const base = { serverUrl: this.o.url, resourceMetadataUrl: options.resourceMetadataUrl, scope: options.scope, fetchFn: this.o.oauthFetch };
    const provider = this.provider;
    let interactive: { close(): Promise<void> } | undefined;
    try {
      await provider.ready();
      if (provider instanceof StoredProvider) interactive = await provider.begin(this.o.authorizer());
      let result = await auth(provider, base);
      if (result === 'REDIRECT' && provider instanceof StoredProvider) {
        result = await auth(provider, { ...base, authorizationCode: provider.takeCode() });
      }
      if (result !== 'AUTHORIZED') throw new Error(`the authorization ended in ${result}`);
      this.needsLogin = false;
    } catch (error) {
      if (isOryxError(error)) {
        if (error.code === 'ORYX_E_MCP_AUTH_REQUIRED') this.needsLogin = true;
        throw error;
      }
      throw new OryxError('ORYX_E_MCP_AUTH_FAILED', `signing in to MCP server "${this.o.server}" failed: ${errorMessage(error)}`, {
        cause: error,
        hint: this.grant !== 'authorization_code'
          ? `Check oauth.clientId and oauth.clientSecret (or privateKey, or idp) of "${this.o.server}".`
          : `Run oryx mcp login ${this.o.server} again; if it keeps failing, check the server's oauth settings (clientId, scopes) or run oryx mcp logout ${this.o.server} first.`,
      });
    } finally {
      await interactive?.close();
    }
  }
}

/** The error for a sign-in that needs a person when none can be reached. */
export function authRequired(server: string, why: string): OryxError {
  return new OryxError('ORYX_E_MCP_AUTH_REQUIRED', `MCP server "${server}" needs authorization (${why})`, {
    hint: `Run oryx mcp login ${server} to sign in once in a browser; the tokens are kept and refreshed without asking.`,
    retryable: false,
  });
}

/**
 * The provider of the authorization code flow: client registration, tokens and discovery read
 * from and written to the token store; the redirect goes through a loopback server, to a
 * person shown the URL by the {@link Authorizer}.
 */
class StoredProvider implements OAuthClientProvider {
  private record?: StoredAuth;
  private loaded?: Promise<void>;
  private loopback?: Loopback;
  private showTo?: Authorizer;
  private verifier?: string;
  private expectedState?: string;
  private code?: string;

  constructor(private readonly o: OAuthSessionOptions) {}

  ready(): Promise<void> {
    this.loaded ??= this.o.store.read(this.o.url).then((r) => { this.record = r; });
    return this.loaded;
  }

  get clientMetadataUrl(): string | undefined { return this.o.config?.clientMetadataUrl; }

  get redirectUrl(): string {
    if (this.loopback) return this.loopback.redirectUrl;
    const port = this.o.config?.callbackPort ?? this.record?.callbackPort;
    return port ? `http://127.0.0.1:${port}/callback` : NO_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = !!this.o.config?.clientSecret;
    return {
      client_name: 'OryxOS',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: secret ? 'client_secret_basic' : 'none',
      software_id: 'oryxos',
      software_version: this.o.clientVersion,
      ...(this.o.config?.scopes?.length ? { scope: this.o.config.scopes.join(' ') } : {}),
    };
  }

  /** Whether the access token expires within the margin and can be refreshed. */
  expiring(): boolean {
    const t = this.record?.tokens;
    if (!t?.refresh_token || !t.expires_in || !this.record?.obtainedAt) return false;
    return this.record.obtainedAt + t.expires_in * 1000 - EXPIRY_MARGIN_MS < Date.now();
  }

  /**
   * Prepares an authorization: with a person to show the URL to, a loopback listener on the
   * registered port (or any, then registering again); without one, the flow may only refresh.
   */
  async begin(authorizer: Authorizer | undefined): Promise<{ close(): Promise<void> } | undefined> {
    await this.ready();
    this.showTo = authorizer;
    this.code = undefined;
    if (!authorizer) {
      if (!this.record?.tokens?.refresh_token) throw authRequired(this.o.server, 'no sign-in is stored for it');
      return undefined;
    }
    const wanted = this.o.config?.callbackPort ?? this.record?.callbackPort ?? 0;
    try {
      this.loopback = await Loopback.listen(wanted);
    } catch (error) {
      if (this.o.config?.callbackPort !== undefined) throw error;
      this.loopback = await Loopback.listen(0);
    }
    const port = this.loopback.port;
    if (this.record?.callbackPort !== port && this.record?.client && !this.o.config?.clientId && !isUrl(this.record.client.client_id)) {
      // The registration names another redirect URI: register again with this one.
      await this.save((r) => ({ ...r, client: undefined, callbackPort: port }));
    } else if (this.record?.callbackPort !== port) {
      await this.save((r) => ({ ...r, callbackPort: port }));
    }
    return { close: async () => { const l = this.loopback; this.loopback = undefined; this.showTo = undefined; await l?.close(); } };
  }

  takeCode(): string {
    const code = this.code;
    this.code = undefined;
    if (!code) throw new Error('the sign-in brought no authorization code');
    return code;
  }

  state(): string {
    this.expectedState = randomBytes(16).toString('base64url');
    return this.expectedState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const c = this.o.config;
    if (c?.clientId) return { client_id: c.clientId, ...(c.clientSecret ? { client_secret: c.clientSecret } : {}) };
    return this.record?.client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    if (this.o.config?.clientId) return; // configured: nothing to keep
    await this.save((r) => ({ ...r, client }));
  }

  tokens(): OAuthTokens | undefined { return this.record?.tokens; }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.save((r) => ({ ...r, tokens, obtainedAt: Date.now() }));
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (!this.showTo || !this.loopback) throw authRequired(this.o.server, 'its stored sign-in expired and could not be refreshed');
    // SEP-2207: ask for a refresh token where the authorization server lists offline_access.
    const supported = this.record?.discovery?.authorizationServerMetadata?.scopes_supported;
    const scope = url.searchParams.get('scope');
    if (supported?.includes('offline_access') && scope && !scope.split(' ').includes('offline_access')) url.searchParams.set('scope', `${scope} offline_access`);
    await this.showTo({ server: this.o.server, url });
    this.code = await this.loopback.code(this.expectedState, this.o.signInTimeoutMs ?? 300_000);
  }

  saveCodeVerifier(verifier: string): void { this.verifier = verifier; }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no PKCE code verifier for this sign-in');
    return this.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') { this.verifier = undefined; return; }
    await this.save((r) => ({
      ...r,
      ...(scope === 'all' || scope === 'client' ? { client: undefined } : {}),
      ...(scope === 'all' || scope === 'tokens' ? { tokens: undefined, obtainedAt: undefined } : {}),
      ...(scope === 'all' || scope === 'discovery' ? { discovery: undefined } : {}),
    }));
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.save((r) => ({ ...r, discovery }));
  }

  discoveryState(): OAuthDiscoveryState | undefined { return this.record?.discovery; }

  private async save(change: (r: StoredAuth) => StoredAuth): Promise<void> {
    this.record = await this.o.store.update(this.o.url, this.o.server, change);
  }
}

/**
 * client_credentials (RFC 6749 §4.4): the SDK's providers, with a secret (client_secret_basic)
 * or a private key (private_key_jwt, RFC 7523), made when first used (the SDK loads lazily).
 * Its tokens live as long as the process: a machine gets new ones without asking anybody.
 */
function machineProvider(o: OAuthSessionOptions): OAuthClientProvider & { ready(): Promise<void> } {
  let inner: OAuthClientProvider | undefined;
  let made: Promise<void> | undefined;
  const make = async () => {
    const { ClientCredentialsProvider, PrivateKeyJwtProvider } = await import('@modelcontextprotocol/sdk/client/auth-extensions.js');
    const c = o.config!;
    const scope = c.scopes?.join(' ');
    inner = c.privateKey
      ? new PrivateKeyJwtProvider({ clientId: c.clientId!, privateKey: c.privateKey, algorithm: c.algorithm ?? 'ES256', clientName: 'OryxOS', ...(scope ? { scope } : {}) })
      : new ClientCredentialsProvider({ clientId: c.clientId!, clientSecret: c.clientSecret!, clientName: 'OryxOS', ...(scope ? { scope } : {}) });
  };
  // The SDK tells flows apart by which members a provider has, so each is passed on as it is.
  return new Proxy({ ready: () => (made ??= make()) } as OAuthClientProvider & { ready(): Promise<void> }, {
    get(target, key) {
      if (key === 'ready') return target.ready;
      if (!inner) throw new Error('the client_credentials provider was used before ready()');
      const value = (inner as unknown as Record<PropertyKey, unknown>)[key];
      return typeof value === 'function' ? value.bind(inner) : value;
    },
  });
}

function isUrl(value: string): boolean {
  return /^https?:\/\//.test(value);
}
