import { OryxError } from '@oryxos/provider-spec';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformation, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpOAuthConfig } from '../options.ts';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';

/**
 * Cross-app access (SEP-990, enterprise-managed authorization): the person signed in to the
 * company's identity provider once; OryxOS trades that ID token at the IdP for an identity
 * assertion grant (RFC 8693 token exchange, an ID-JAG for the MCP server's authorization
 * server and resource), then trades the assertion at the authorization server for an access
 * token (RFC 7523 jwt-bearer grant, client_secret_basic). No browser, no consent screen: the
 * IdP's policy decides. The SDK's `auth()` runs discovery and calls `prepareTokenRequest`.
 */
export class CrossAppProvider implements OAuthClientProvider {
  private stored?: OAuthTokens;
  private discovery?: OAuthDiscoveryState;

  constructor(private readonly o: { server: string; url: string; config: McpOAuthConfig; oauthFetch: FetchLike }) {}

  async ready(): Promise<void> {}

  get redirectUrl(): undefined { return undefined; }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'OryxOS', redirect_uris: [], grant_types: [JWT_BEARER], token_endpoint_auth_method: 'client_secret_basic',
      ...(this.o.config.scopes?.length ? { scope: this.o.config.scopes.join(' ') } : {}),
    };
  }

  clientInformation(): OAuthClientInformation {
    return { client_id: this.o.config.clientId!, ...(this.o.config.clientSecret ? { client_secret: this.o.config.clientSecret } : {}) };
  }

  tokens(): OAuthTokens | undefined { return this.stored; }
  saveTokens(tokens: OAuthTokens): void { this.stored = tokens; }
  saveDiscoveryState(state: OAuthDiscoveryState): void { this.discovery = state; }
  discoveryState(): OAuthDiscoveryState | undefined { return this.discovery; }
  saveCodeVerifier(): void {}
  codeVerifier(): string { throw new Error('cross-app access uses no PKCE verifier'); }

  redirectToAuthorization(): void {
    throw new OryxError('ORYX_E_MCP_AUTH_FAILED', `MCP server "${this.o.server}" asked for a browser sign-in, but its entry uses cross-app access`, {
      hint: 'Check oauth.idp of the entry: the identity provider must issue an assertion the authorization server accepts.',
    });
  }

  /** The identity assertion from the IdP, as the jwt-bearer grant of the token request. */
  async prepareTokenRequest(scope?: string): Promise<URLSearchParams> {
    const idp = this.o.config.idp!;
    const audience = this.discovery?.authorizationServerMetadata?.issuer ?? this.discovery?.authorizationServerUrl;
    const resource = this.discovery?.resourceMetadata?.resource ?? this.o.url;
    if (!audience) throw new Error('the authorization server of the MCP server is not known yet');
    const body = new URLSearchParams({
      grant_type: TOKEN_EXCHANGE, requested_token_type: ID_JAG, audience, resource,
      subject_token: idp.idToken, subject_token_type: ID_TOKEN, client_id: idp.clientId,
      ...(scope ? { scope } : {}),
    });
    const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' });
    if (idp.clientSecret) headers.set('authorization', `Basic ${Buffer.from(`${encodeURIComponent(idp.clientId)}:${encodeURIComponent(idp.clientSecret)}`).toString('base64')}`);
    const response = await this.o.oauthFetch(idp.tokenEndpoint, { method: 'POST', headers, body: body.toString() });
    const answer = await response.json().catch(() => ({})) as { access_token?: string; error?: string; error_description?: string };
    if (!response.ok || !answer.access_token) {
      throw new OryxError('ORYX_E_MCP_AUTH_FAILED', `the identity provider refused the token exchange for MCP server "${this.o.server}" (HTTP ${response.status}${answer.error ? `: ${answer.error}` : ''}${answer.error_description ? `, ${answer.error_description}` : ''})`, {
        hint: 'Check oauth.idp (tokenEndpoint, clientId) and that the ID token in oauth.idp.idToken is current.',
      });
    }
    return new URLSearchParams({ grant_type: JWT_BEARER, assertion: answer.access_token, ...(scope ? { scope } : {}) });
  }
}
