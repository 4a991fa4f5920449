import { OryxError } from '@oryxos/provider-spec';
import { shape as s, validateOptions as validate } from '@oryxos/schema-kit';

/** How OryxOS reaches a server: a program it starts, Streamable HTTP, or the legacy HTTP+SSE transport. */
export type McpTransportKind = 'stdio' | 'http' | 'sse';

/**
 * OAuth 2.1 for a remote server (the MCP authorization spec). Everything is optional: with
 * nothing set, OryxOS discovers the authorization server, registers itself (dynamic client
 * registration) and runs the browser flow on `oryx mcp login NAME`.
 *
 * @example
 * const preRegistered: McpOAuthConfig = { clientId: 'oryx-123', clientSecret: '${GITHUB_CLIENT_SECRET}', scopes: ['repo'] };
 * const machine: McpOAuthConfig = { grant: 'client_credentials', clientId: 'svc', clientSecret: '${SVC_SECRET}' };
 */
export interface McpOAuthConfig {
  /** A client registered beforehand with the authorization server (no dynamic registration then). */
  clientId?: string;
  /** Its secret, for a confidential client (sent as client_secret_basic or client_secret_post, as the server supports). */
  clientSecret?: string;
  /** Scopes to ask for. Default: what the server's challenge or metadata names. */
  scopes?: string[];
  /** A fixed loopback port for the redirect (`http://127.0.0.1:PORT/callback`), for a client registered with that exact URI. Default: any free port. */
  callbackPort?: number;
  /** An https URL where this client's metadata document is published; used as the client id where the server supports it (CIMD). */
  clientMetadataUrl?: string;
  /**
   * `client_credentials`: no person, no browser; needs clientId and clientSecret or privateKey.
   * `cross_app_access` (SEP-990): the person's ID token from the company's identity provider is
   * traded for access; needs clientId, clientSecret and idp. Default `authorization_code`.
   */
  grant?: 'authorization_code' | 'client_credentials' | 'cross_app_access';
  /** client_credentials with private_key_jwt: the PEM private key (use `${VAR}`). */
  privateKey?: string;
  /** Its signing algorithm. Default ES256. */
  algorithm?: string;
  /** cross_app_access: the identity provider that issued the person's ID token. */
  idp?: {
    /** Its token endpoint (RFC 8693 token exchange). */
    tokenEndpoint: string;
    /** OryxOS's client id at the identity provider. */
    clientId: string;
    clientSecret?: string;
    /** The person's ID token (use `${VAR}`). */
    idToken: string;
  };
}

/**
 * One MCP server: a command to start (stdio) or a URL to reach (Streamable HTTP, or the legacy
 * HTTP+SSE transport with `type: sse`).
 *
 * @example
 * const fs: McpServerConfig = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] };
 * const remote: McpServerConfig = { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer …' } };
 */
export interface McpServerConfig {
  /** The transport; inferred from `command` (stdio) or `url` (http). `sse` must be said. */
  type?: McpTransportKind;
  /** stdio: the program to start. */
  command?: string;
  /** stdio: its arguments. */
  args?: string[];
  /** stdio: extra environment variables (added to a small safe default set, not the whole environment). */
  env?: Record<string, string>;
  /** stdio: a file of `KEY=value` lines added to `env` (VS Code's `envFile`), relative to the project folder. */
  envFile?: string;
  /** stdio: working directory, relative to the project folder. Default: the project folder. */
  cwd?: string;
  /** http/sse: the endpoint URL. */
  url?: string;
  /** http/sse: headers sent with every request (auth tokens). */
  headers?: Record<string, string>;
  /** http/sse: OAuth settings; `false` never answers an authorization challenge. */
  oauth?: McpOAuthConfig | false;
  /** `false` keeps the server declared but never started. Default true. */
  enabled?: boolean;
  /** Time limit of one tool call without progress, in ms. Default: the plugin's `timeoutMs`. */
  timeoutMs?: number;
  /** Time limit to start and finish the MCP handshake, in ms. Default: the plugin's `connectTimeoutMs`. */
  connectTimeoutMs?: number;
  /** Allow-list of the server's own tool names (`*` globs). Default: all its tools. */
  tools?: string[];
}

/** Options of the `mcp()` plugin. */
export interface McpOptions {
  /** OryxOS's servers file, relative to the project folder. Default `<workspace>/mcp_servers.yaml`. */
  file?: string;
  /**
   * Files in the shape other clients write (`mcpServers` of Claude Desktop and Claude Code,
   * `servers` of VS Code and Cursor), read as they are, relative to the project folder.
   * Default `['.mcp.json']`; `[]` reads none.
   */
  include?: string[];
  /** Servers declared in code; an entry here replaces a file entry of the same name. */
  servers?: Record<string, McpServerConfig>;
  /** Connect every enabled server at `init` instead of on first use. Default false. */
  eager?: boolean;
  /** Default time limit of one tool call without progress, in ms. Default 60 000. */
  timeoutMs?: number;
  /** Longest a call may run while the server keeps reporting progress, in ms. Default 600 000. */
  maxCallMs?: number;
  /** Default time limit to start a server and finish the handshake, in ms. Default 30 000. */
  connectTimeoutMs?: number;
  /** Where OAuth tokens are kept (one 0600 file per server). Default `$XDG_STATE_HOME/oryxos/mcp-auth` (`~/.local/state/oryxos/mcp-auth`). */
  tokenDir?: string;
  /** Backoff between failed attempts to start a server: the first retry is immediate, then base × 2ⁿ up to max. */
  reconnect?: { baseDelayMs?: number; maxDelayMs?: number };
  /** What one server may send, and what one agent gets from it. */
  limits?: {
    /** Tools of one server offered to one agent, after the agent's `tools:` list. Default 256. */
    maxTools?: number;
    /** Characters of JSON the whole tool list may take (names, descriptions, schemas). Default 1,000,000. */
    maxToolListChars?: number;
    /** Bytes of one message from a server (a tool result, a page of tools). Default 10 MiB. */
    maxMessageBytes?: number;
  };
}

export const DEFAULTS = Object.freeze({
  include: ['.mcp.json'] as readonly string[],
  timeoutMs: 60_000,
  maxCallMs: 600_000,
  connectTimeoutMs: 30_000,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxTools: 256,
  maxToolListChars: 1_000_000,
  maxMessageBytes: 10 * 1024 * 1024,
});

/** The fields of a server entry, in the order the README lists them. */
export const SERVER_FIELDS = ['type', 'command', 'args', 'env', 'envFile', 'cwd', 'url', 'headers', 'oauth', 'enabled', 'timeoutMs', 'connectTimeoutMs', 'tools'] as const;
const STDIO_ONLY = ['command', 'args', 'env', 'envFile', 'cwd'] as const;
const HTTP_ONLY = ['url', 'headers', 'oauth'] as const;

const text = s.string({ min: 1 }).optional();
const strings = s.array(s.string()).optional();
const positive = s.integer({ above: 0 }).optional();
const nonNegative = s.integer({ min: 0 }).optional();

export const oauthShape = s.object({
  clientId: text,
  clientSecret: text,
  scopes: strings,
  callbackPort: s.integer({ min: 1, max: 65_535 }).optional(),
  clientMetadataUrl: text,
  grant: s.literal('authorization_code', 'client_credentials', 'cross_app_access').optional(),
  privateKey: text,
  algorithm: text,
  idp: s.object({ tokenEndpoint: s.string({ min: 1 }), clientId: s.string({ min: 1 }), clientSecret: text, idToken: s.string({ min: 1 }) }).optional(),
});

export const serverShape = s.object({
  type: s.literal('stdio', 'http', 'sse').optional(),
  command: text,
  args: strings,
  env: s.record(s.string()).optional(),
  envFile: text,
  cwd: text,
  url: text,
  headers: s.record(s.string()).optional(),
  oauth: s.union(oauthShape, s.literal(false)).optional(),
  enabled: s.boolean().optional(),
  timeoutMs: positive,
  connectTimeoutMs: positive,
  tools: strings,
});

const optionsShape = s.object({
  file: text,
  include: s.array(s.string({ min: 1 })).optional(),
  servers: s.record(serverShape).optional(),
  eager: s.boolean().optional(),
  timeoutMs: positive,
  maxCallMs: positive,
  connectTimeoutMs: positive,
  tokenDir: text,
  reconnect: s.object({ baseDelayMs: nonNegative, maxDelayMs: nonNegative }).optional(),
  limits: s.object({ maxTools: positive, maxToolListChars: positive, maxMessageBytes: s.integer({ min: 1024 }).optional() }).optional(),
});

/**
 * Server names become tool-name prefixes (`<server>__<tool>`), so they use the characters
 * model APIs accept and never contain `__` or end in `_`, which would make the split ambiguous.
 */
export const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

/** A problem with one field of a server entry. */
export interface FieldProblem { field: string; problem: string }

/** The transport of an entry: `type` when given, else stdio for a command and http for a URL. */
export function transportOf(server: McpServerConfig): McpTransportKind {
  return server.type ?? (server.url !== undefined ? 'http' : 'stdio');
}

/**
 * Checks what the shape does not express: a server is either stdio or HTTP, its `type` agrees
 * with its fields, and its name fits tool names. Returns the first problem, or undefined.
 */
export function serverProblem(name: string, server: McpServerConfig): FieldProblem | undefined {
  if (!SERVER_NAME.test(name)) {
    return { field: `servers.${name}`, problem: 'is not a valid server name (letters, digits, - and single _ only; it prefixes tool names as <server>__<tool>)' };
  }
  if (server.command !== undefined && server.url !== undefined) {
    return { field: `servers.${name}`, problem: 'has both command and url; a server is either stdio (command) or remote (url)' };
  }
  const kind = transportOf(server);
  if (kind === 'stdio' && server.command === undefined) {
    return server.type === 'stdio'
      ? { field: `servers.${name}.command`, problem: 'is missing (type: stdio starts a program)' }
      : { field: `servers.${name}`, problem: 'needs either command (a stdio server) or url (a remote server)' };
  }
  if (kind !== 'stdio' && server.url === undefined) {
    return { field: `servers.${name}.url`, problem: `is missing (type: ${kind} reaches a URL)` };
  }
  const wrong = kind !== 'stdio'
    ? STDIO_ONLY.find((k) => server[k] !== undefined)
    : HTTP_ONLY.find((k) => server[k] !== undefined);
  if (wrong) {
    return { field: `servers.${name}.${wrong}`, problem: `only applies to ${kind !== 'stdio' ? 'stdio servers (command)' : 'remote servers (url)'}` };
  }
  const oauth = server.oauth;
  if (oauth && oauth.grant === 'client_credentials' && (!oauth.clientId || (!oauth.clientSecret && !oauth.privateKey))) {
    return { field: `servers.${name}.oauth`, problem: 'with grant: client_credentials needs clientId and clientSecret or privateKey' };
  }
  if (oauth && oauth.privateKey && oauth.grant !== 'client_credentials') {
    return { field: `servers.${name}.oauth.privateKey`, problem: 'only applies with grant: client_credentials' };
  }
  if (oauth && oauth.grant === 'cross_app_access' && (!oauth.clientId || !oauth.idp)) {
    return { field: `servers.${name}.oauth`, problem: 'with grant: cross_app_access needs clientId (and clientSecret) at the authorization server, and idp: { tokenEndpoint, clientId, idToken }' };
  }
  if (oauth && oauth.idp && oauth.grant !== 'cross_app_access') {
    return { field: `servers.${name}.oauth.idp`, problem: 'only applies with grant: cross_app_access' };
  }
  return undefined;
}

/** A server URL must parse and use http or https; checked after `${VAR}` expansion. */
export function urlProblem(name: string, url: string, field = 'url'): FieldProblem | undefined {
  let parsed: URL | undefined;
  try { parsed = new URL(url); } catch { /* reported below */ }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    return { field: `servers.${name}.${field}`, problem: `must be an http:// or https:// URL (got "${url}")` };
  }
  return undefined;
}

/**
 * Validates the plugin options at once; the error names the field.
 *
 * @example
 * validateOptions({ servers: { fs: { command: 'npx' } } }); // ok
 * validateOptions({ timeoutMs: -1 }); // throws ORYX_E_MCP_OPTIONS_INVALID naming timeoutMs
 */
export function validateOptions(options: unknown): McpOptions {
  const valid: McpOptions = validate(optionsShape, options, { plugin: 'mcp', code: 'ORYX_E_MCP_OPTIONS_INVALID', example: "mcp({ servers: { fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] } } })" });
  for (const [name, server] of Object.entries(valid.servers ?? {})) {
    const p = serverProblem(name, server)
      ?? (server.url !== undefined ? urlProblem(name, server.url) : undefined)
      ?? (server.oauth && server.oauth.clientMetadataUrl !== undefined ? urlProblem(name, server.oauth.clientMetadataUrl, 'oauth.clientMetadataUrl') : undefined);
    if (p) {
      throw new OryxError('ORYX_E_MCP_OPTIONS_INVALID', `mcp(): option ${p.field} ${p.problem}`, {
        hint: `Fix ${p.field} in mcp({...}) in oryx.config.ts; see the option table in the @oryxos/plugin-mcp README.`,
        data: { field: p.field },
      });
    }
  }
  return valid;
}
