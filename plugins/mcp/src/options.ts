import { type } from 'arktype';
import { OryxError, validateOptions as validate } from '@oryxos/kernel';

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

const serverShape = type({
  'command?': 'string > 0',
  'args?': 'string[]',
  'env?': 'Record<string, string>',
  'cwd?': 'string > 0',
  'url?': 'string > 0',
  'headers?': 'Record<string, string>',
  'enabled?': 'boolean',
  'timeoutMs?': 'number.integer > 0',
  'connectTimeoutMs?': 'number.integer > 0',
  'tools?': 'string[]',
  '+': 'reject',
});

/** The shape of `mcp_servers.yaml`; `servers:` may be empty (null) when every entry is commented out. */
export const fileShape = type({
  'servers?': type({ '[string]': serverShape }).or('null'),
  '+': 'reject',
});

const optionsShape = type({
  'file?': 'string > 0',
  'servers?': type({ '[string]': serverShape }),
  'eager?': 'boolean',
  'timeoutMs?': 'number.integer > 0',
  'connectTimeoutMs?': 'number.integer > 0',
  'reconnect?': { 'baseDelayMs?': 'number.integer >= 0', 'maxDelayMs?': 'number.integer >= 0', '+': 'reject' },
  'limits?': { 'maxTools?': 'number.integer > 0', 'maxToolListChars?': 'number.integer > 0', 'maxMessageBytes?': 'number.integer >= 1024', '+': 'reject' },
  '+': 'reject',
});

/**
 * Server names become tool-name prefixes (`<server>__<tool>`), so they use the characters
 * model APIs accept and never contain `__` or end in `_`, which would make the split ambiguous.
 */
export const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

/** The first problem arktype found, as a field path and a sentence. */
export function firstProblem(errors: InstanceType<typeof type.errors>, prefix = ''): { field: string; problem: string } {
  const first = errors[0];
  if (!first) return { field: prefix || '(root)', problem: errors.summary };
  const field = [prefix, first.propString].filter(Boolean).join('.') || '(root)';
  const last = first.path.at(-1);
  // Some arktype problems (unions such as boolean) already start with the field name.
  const raw = first.problem.startsWith(`${first.propString} `) ? first.problem.slice(first.propString.length + 1) : first.problem;
  const problem = raw === 'must be removed'
    ? `is not a known field${first.path.length === 3 && first.path[0] === 'servers' ? ` (a server takes ${SERVER_FIELDS.join(', ')})` : ''}`
    : raw;
  return { field: field || String(last), problem };
}

/**
 * Checks what arktype cannot express: a server is either stdio or HTTP, and its name fits
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
