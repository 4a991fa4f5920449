import { OryxError } from '@oryxos/provider-spec';
import { shape as s, validateOptions as validate, type ShapeIssue } from '@oryxos/schema-kit';

/**
 * One MCP server: a command to start (stdio) or a URL to reach (Streamable HTTP).
 *
 * @example
 * const fs: McpServerConfig = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] };
 * const remote: McpServerConfig = { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer …' } };
 */
export interface McpServerConfig {
  /** stdio: the program to start. */
  command?: string;
  /** stdio: its arguments. */
  args?: string[];
  /** stdio: extra environment variables (added to a small safe default set, not the whole environment). */
  env?: Record<string, string>;
  /** stdio: working directory, relative to the project folder. Default: the project folder. */
  cwd?: string;
  /** Streamable HTTP: the endpoint URL. */
  url?: string;
  /** Streamable HTTP: headers sent with every request (auth tokens). */
  headers?: Record<string, string>;
  /** `false` keeps the server declared but never started. Default true. */
  enabled?: boolean;
  /** Time limit of one tool call, in ms. Default: the plugin's `timeoutMs`. */
  timeoutMs?: number;
  /** Time limit to start and finish the MCP handshake, in ms. Default: the plugin's `connectTimeoutMs`. */
  connectTimeoutMs?: number;
  /** Allow-list of the server's own tool names (`*` globs). Default: all its tools. */
  tools?: string[];
}

/** Options of the `mcp()` plugin. */
export interface McpOptions {
  /** The servers file, relative to the project folder. Default `<workspace>/mcp_servers.yaml`. */
  file?: string;
  /** Servers declared in code; an entry here replaces a file entry of the same name. */
  servers?: Record<string, McpServerConfig>;
  /** Connect every enabled server at `init` instead of on first use. Default false. */
  eager?: boolean;
  /** Default time limit of one tool call, in ms. Default 60 000. */
  timeoutMs?: number;
  /** Default time limit to start a server and finish the handshake, in ms. Default 30 000. */
  connectTimeoutMs?: number;
  /** Backoff between failed attempts to start a server: the first retry is immediate, then base × 2ⁿ up to max. */
  reconnect?: { baseDelayMs?: number; maxDelayMs?: number };
  /** What one server may send: a server over a limit is refused (its list) or its answer is (a message). */
  limits?: {
    /** Tools one server may offer, before its `tools:` allow-list. Default 256. */
    maxTools?: number;
    /** Characters of JSON the whole tool list may take (names, descriptions, schemas). Default 1,000,000. */
    maxToolListChars?: number;
    /** Bytes of one message from a server (a tool result, a page of tools). Default 10 MiB. */
    maxMessageBytes?: number;
  };
}

export const DEFAULTS = Object.freeze({
  timeoutMs: 60_000,
  connectTimeoutMs: 30_000,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxTools: 256,
  maxToolListChars: 1_000_000,
  maxMessageBytes: 10 * 1024 * 1024,
});

const SERVER_FIELDS = ['command', 'args', 'env', 'cwd', 'url', 'headers', 'enabled', 'timeoutMs', 'connectTimeoutMs', 'tools'];
const STDIO_ONLY = ['command', 'args', 'env', 'cwd'] as const;
const HTTP_ONLY = ['url', 'headers'] as const;

const text = s.string({ min: 1 }).optional();
const strings = s.array(s.string()).optional();
const positive = s.integer({ above: 0 }).optional();
const nonNegative = s.integer({ min: 0 }).optional();
const serverShape = s.object({
  command: text,
  args: strings,
  env: s.record(s.string()).optional(),
  cwd: text,
  url: text,
  headers: s.record(s.string()).optional(),
  enabled: s.boolean().optional(),
  timeoutMs: positive,
  connectTimeoutMs: positive,
  tools: strings,
});

/** The shape of `mcp_servers.yaml`; `servers:` may be empty (null) when every entry is commented out. */
export const fileShape = s.object({
  servers: s.union(s.record(serverShape), s.literal(null)).optional(),
});

const optionsShape = s.object({
  file: text,
  servers: s.record(serverShape).optional(),
  eager: s.boolean().optional(),
  timeoutMs: positive,
  connectTimeoutMs: positive,
  reconnect: s.object({ baseDelayMs: nonNegative, maxDelayMs: nonNegative }).optional(),
  limits: s.object({ maxTools: positive, maxToolListChars: positive, maxMessageBytes: s.integer({ min: 1024 }).optional() }).optional(),
});

/**
 * Server names become tool-name prefixes (`<server>__<tool>`), so they use the characters
 * model APIs accept and never contain `__` or end in `_`, which would make the split ambiguous.
 */
export const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

/** A shape's first problem, as a field path and a sentence. */
export function firstProblem(found: ShapeIssue, prefix = ''): { field: string; problem: string } {
  const field = [prefix, ...found.path].filter((k) => k !== '').join('.') || '(root)';
  const problem = found.problem === 'must be removed'
    ? `is not a known field${found.path.length === 3 && found.path[0] === 'servers' ? ` (a server takes ${SERVER_FIELDS.join(', ')})` : ''}`
    : found.problem;
  return { field, problem };
}

/**
 * Checks what the shape does not express: a server is either stdio or HTTP, and its name fits
 * tool names. Returns the first problem, or undefined.
 */
export function serverProblem(name: string, server: McpServerConfig): { field: string; problem: string } | undefined {
  if (!SERVER_NAME.test(name)) {
    return { field: `servers.${name}`, problem: 'is not a valid server name (letters, digits, - and single _ only; it prefixes tool names as <server>__<tool>)' };
  }
  if (server.command === undefined && server.url === undefined) {
    return { field: `servers.${name}`, problem: 'needs either command (a stdio server) or url (a Streamable HTTP server)' };
  }
  if (server.command !== undefined && server.url !== undefined) {
    return { field: `servers.${name}`, problem: 'has both command and url; a server is either stdio (command) or Streamable HTTP (url)' };
  }
  const wrong = server.url !== undefined
    ? STDIO_ONLY.find((k) => server[k] !== undefined)
    : HTTP_ONLY.find((k) => server[k] !== undefined);
  if (wrong) {
    return { field: `servers.${name}.${wrong}`, problem: `only applies to ${server.url !== undefined ? 'stdio servers (command)' : 'HTTP servers (url)'}` };
  }
  return undefined;
}

/** A server URL must parse and use http or https; checked after `${VAR}` expansion. */
export function urlProblem(name: string, url: string): { field: string; problem: string } | undefined {
  let parsed: URL | undefined;
  try { parsed = new URL(url); } catch { /* reported below */ }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    return { field: `servers.${name}.url`, problem: `must be an http:// or https:// URL (got "${url}")` };
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
    const p = serverProblem(name, server) ?? (server.url !== undefined ? urlProblem(name, server.url) : undefined);
    if (p) {
      throw new OryxError('ORYX_E_MCP_OPTIONS_INVALID', `mcp(): option ${p.field} ${p.problem}`, {
        hint: `Fix ${p.field} in mcp({...}) in oryx.config.ts; see the option table in the @oryxos/plugin-mcp README.`,
        data: { field: p.field },
      });
    }
  }
  return valid;
}
