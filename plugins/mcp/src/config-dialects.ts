import { closest, didYouMean, shape } from '@oryxos/schema-kit';
import { SERVER_FIELDS, serverShape, type FieldProblem, type McpServerConfig } from './options.ts';

/**
 * Server entries as the ecosystem writes them. `oryx`: OryxOS's own `servers:` (strict: an
 * unknown field is a typo). `foreign`: the `mcpServers` of Claude Desktop, Claude Code, Cursor,
 * Cline and Windsurf, and the `servers` of VS Code: their own names mapped to OryxOS's, fields
 * that only matter to those clients left out with a note.
 *
 * Sources: Claude Code's MCP docs (`.mcp.json`, `type: stdio|http|sse`, `${VAR:-default}`),
 * the modelcontextprotocol.io quick start (`claude_desktop_config.json`), VS Code's MCP
 * configuration reference (`servers`, `type`, `envFile`, `${input:…}`, `oauth.clientId`),
 * Cline's and Windsurf's MCP docs (`disabled`, `autoApprove`, `transportType`, `serverUrl`).
 */
export type Dialect = 'oryx' | 'foreign';

/** Other clients' names for OryxOS fields. */
const ALIASES: Record<string, string> = { serverUrl: 'url', transportType: 'type', transport: 'type' };

/** Fields only other clients use: left out, and said so at info level. */
const IGNORED: Record<string, string> = {
  autoApprove: 'Cline approves these tools without asking; in OryxOS approvals are the approvals plugin\'s',
  alwaysAllow: 'Roo approves these tools without asking; in OryxOS approvals are the approvals plugin\'s',
  disabledTools: 'use tools: (an allow-list) in .oryxos/mcp_servers.yaml',
  timeout: 'use timeoutMs (milliseconds) in .oryxos/mcp_servers.yaml',
  description: 'a note for people',
  dev: 'VS Code\'s watch-and-restart for server authors',
  gallery: 'VS Code\'s gallery entry',
  version: 'VS Code\'s version label',
  name: 'a display name',
};

/** Fields OryxOS cannot honour: the server is unavailable, saying so. */
const UNSUPPORTED: Record<string, string> = {
  headersHelper: 'Claude Code runs this command for headers; OryxOS does not run commands to build headers: put them under headers: with ${VAR}',
};

/** Transport names in the wild, as OryxOS's `type`. */
const TYPES: Record<string, McpServerConfig['type']> = {
  stdio: 'stdio', http: 'http', 'streamable-http': 'http', streamableHttp: 'http', streamable_http: 'http', sse: 'sse',
};

/** What one entry became: its config, or the one problem that makes it unusable; notes either way. */
export interface Normalized {
  config?: McpServerConfig;
  problem?: FieldProblem;
  notes: string[];
}

/**
 * One raw server entry as OryxOS's config, checked: the first problem names the field, with a
 * "did you mean" for a likely typo of a known field (`comand` → `command`).
 *
 * @example
 * normalizeEntry('fs', { type: 'stdio', command: 'npx', args: ['-y', 'x'] }, 'foreign').config; // { type: 'stdio', command: 'npx', args: [...] }
 * normalizeEntry('fs', { comand: 'npx' }, 'oryx').problem; // { field: 'servers.fs.comand', problem: 'is not a known field (did you mean "command"?) …' }
 */
export function normalizeEntry(name: string, raw: unknown, dialect: Dialect): Normalized {
  const notes: string[] = [];
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    return { notes, problem: { field: `servers.${name}`, problem: `must be an object with command or url (was ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw})` } };
  }
  let entry: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  if (dialect === 'foreign') {
    const mapped: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(entry)) {
      if (key in UNSUPPORTED) return { notes, problem: { field: `servers.${name}.${key}`, problem: `is not supported: ${UNSUPPORTED[key]}` } };
      if (key in IGNORED) { notes.push(`${key} is left out (${IGNORED[key]})`); continue; }
      const target = ALIASES[key] ?? key;
      if (target === 'type' && typeof value === 'string') {
        const type = TYPES[value];
        if (!type) return { notes, problem: { field: `servers.${name}.${key}`, problem: `must be stdio, http or sse (was "${value}")${didYouMean(value, Object.keys(TYPES))}` } };
        mapped.type = type;
      } else if (key === 'disabled' && typeof value === 'boolean') {
        mapped.enabled = !value;
      } else if (key === 'oauth' && value && typeof value === 'object' && !Array.isArray(value)) {
        // Claude Code and VS Code: { clientId, clientSecret?, callbackPort?, scopes? }
        mapped.oauth = value;
      } else if (key === 'env' && value && typeof value === 'object' && !Array.isArray(value)) {
        // Claude Desktop files hold numbers and booleans in env now and then; a process sees strings.
        mapped.env = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, typeof v === 'number' || typeof v === 'boolean' ? String(v) : v]));
      } else {
        mapped[target] = value;
      }
    }
    entry = mapped;
  }
  const found = shape.check(serverShape, entry);
  if (found) {
    const field = ['servers', name, ...found.path].join('.');
    if (found.problem === 'must be removed') {
      const key = String(found.path.at(-1));
      const known = found.path.length === 1 ? [...SERVER_FIELDS, ...(dialect === 'foreign' ? ['disabled', 'serverUrl'] : [])] : (found.known ?? []);
      const also = dialect === 'oryx' && key === 'disabled' ? ' (write enabled: false)' : '';
      return { notes, problem: { field, problem: `is not a known field${didYouMean(key, known) || also} (a ${found.path.length === 1 ? 'server' : String(found.path[0])} takes ${known.join(', ')})` } };
    }
    return { notes, problem: { field, problem: found.problem } };
  }
  return { config: entry as McpServerConfig, notes };
}

/**
 * A server name from another client's file as OryxOS can use it: its names may hold spaces or
 * dots, which tool names cannot (`Brave Search` → `Brave-Search`).
 */
export function foreignName(name: string): string {
  return name.trim().replace(/[^A-Za-z0-9_-]+/g, '-').replace(/_{2,}/g, '_').replace(/-{2,}/g, '-').replace(/^[-_]+|[-_]+$/g, '') || 'server';
}

/**
 * The top-level key that holds servers in a parsed file, and what else it has that OryxOS
 * reads or knows to leave out. `mcpServers` (Claude, Cursor, Cline, Windsurf) and `servers`
 * (OryxOS, VS Code) are both read; a typo of either is named.
 */
export function serversKey(raw: Record<string, unknown>, dialect: Dialect): { key?: 'servers' | 'mcpServers'; problem?: FieldProblem; notes: string[] } {
  const notes: string[] = [];
  const has = (k: string) => Object.hasOwn(raw, k);
  if (has('servers') && has('mcpServers')) return { notes, problem: { field: 'mcpServers', problem: 'is given next to servers; keep one of them (OryxOS reads either)' } };
  const known = dialect === 'oryx' ? ['servers', 'mcpServers'] : ['servers', 'mcpServers', 'inputs', '$schema'];
  for (const key of Object.keys(raw)) {
    if (known.includes(key)) continue;
    if (dialect === 'foreign') { notes.push(`the top-level ${key} is left out`); continue; }
    const near = closest(key, ['servers', 'mcpServers']);
    return { notes, problem: { field: key, problem: `is not a known field${near ? ` (did you mean "${near}"?)` : ''} (the file takes servers:, a map of server names to entries)` } };
  }
  if (has('inputs')) notes.push('inputs (VS Code prompts) are not shown by OryxOS; a server that uses ${input:…} is unavailable, saying which');
  const key = has('mcpServers') ? 'mcpServers' : has('servers') ? 'servers' : undefined;
  if (key === 'mcpServers' && dialect === 'oryx') notes.push('mcpServers: is read as servers: (the Claude Desktop shape); rename it to servers:');
  return { key, notes };
}
