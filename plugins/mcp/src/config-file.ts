import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { OryxError, errorMessage, isOryxError } from '@oryxos/provider-spec';
import { foreignName, normalizeEntry, serversKey, type Dialect } from './config-dialects.ts';
import { expandServer, parseEnvFile, secretValues } from './env.ts';
import { parseJsonc } from './jsonc.ts';
import { DEFAULTS, serverProblem, urlProblem, type FieldProblem, type McpOptions, type McpServerConfig } from './options.ts';

/** Where a server was declared: the plugin options, OryxOS's servers file, or an included file of another client. */
export type ServerOrigin = 'options' | 'file' | 'include';

/** A declared server, its `${VAR}` references expanded. */
export interface ServerEntry {
  name: string;
  config: McpServerConfig;
  origin: ServerOrigin;
  /** The file it came from (absolute), or `mcp() options`. */
  source: string;
  /** Set when the entry cannot be used (a bad field, a missing variable): the server is unavailable with this reason. */
  error?: OryxError;
  /** What was read differently from the file (a field of another client left out, a name changed). */
  notes?: string[];
}

/** A file that could not be read at all (not valid JSON or YAML, the wrong shape): its servers are not known. */
export interface ConfigProblem {
  file: string;
  error: OryxError;
}

export interface LoadedServers {
  servers: ServerEntry[];
  /** OryxOS's servers file (absolute), when it was read. */
  file?: string;
  /** OryxOS's servers file (absolute), read or not: where `oryx mcp add` writes. */
  serversFile: string;
  /** Every file that says which programs OryxOS starts, read or not: no agent may write them. */
  controlFiles: string[];
  /** Files that could not be read; the other files and servers are used. */
  problems: ConfigProblem[];
  /** Names declared in several places: the entry used and the ones left out, by source. */
  overridden: { name: string; used: string; ignored: string[] }[];
  /** Values to mask wherever OryxOS writes text: what `${VAR}` put in, credential-like `env` and `headers`. */
  secrets: string[];
  /** Things said about the files at info level (another client's field left out). */
  notes: string[];
}

/** A path for messages: relative to the working folder when that is shorter. */
export function shownPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') ? relative : file;
}

/**
 * Reads every place servers are declared and merges them. Precedence, highest first: the
 * plugin's `servers` option, OryxOS's servers file (`<workspace>/mcp_servers.yaml`), then each
 * `include` file in order (`.mcp.json` by default). A name declared in several places is taken
 * whole from the highest; nothing is merged. Nothing here throws for a bad file or entry: a
 * file that cannot be read is a {@link ConfigProblem}, an entry that cannot be used carries its
 * `error`, and everything else is used.
 *
 * @example
 * const { servers, problems } = await loadServers({ options: {}, root: '/proj', workspaceDir: '/proj/.oryxos' });
 */
export async function loadServers(input: {
  options: McpOptions;
  root: string;
  workspaceDir: string;
  env?: NodeJS.ProcessEnv;
}): Promise<LoadedServers> {
  const env = input.env ?? process.env;
  const explicit = input.options.file !== undefined;
  const file = explicit ? path.resolve(input.root, input.options.file!) : path.join(input.workspaceDir, 'mcp_servers.yaml');
  const includes = (input.options.include ?? DEFAULTS.include).map((f) => path.resolve(input.root, f)).filter((f) => f !== file);
  const out: LoadedServers = { servers: [], serversFile: file, controlFiles: [file, ...includes], problems: [], overridden: [], secrets: [], notes: [] };
  const folders = { workspaceFolder: input.root, userHome: env.HOME ?? os.homedir() };

  const fromOptions = Object.entries(input.options.servers ?? {}).map(([name, config]): ServerEntry => ({ name, config, origin: 'options', source: 'mcp() options' }));
  for (const s of fromOptions) out.secrets.push(...secretValues(s.config, []));

  const layers: ServerEntry[][] = [fromOptions];
  const own = await readSource(file, { origin: 'file', dialect: 'oryx', required: explicit, env, root: input.root, folders, out });
  if (own) { out.file = file; layers.push(own); }
  for (const include of includes) {
    const entries = await readSource(include, { origin: 'include', dialect: 'foreign', required: false, env, root: input.root, folders, out });
    if (entries) layers.push(entries);
  }

  const seen = new Map<string, ServerEntry>();
  for (const layer of layers) {
    for (const entry of layer) {
      const first = seen.get(entry.name);
      if (!first) { seen.set(entry.name, entry); continue; }
      const known = out.overridden.find((o) => o.name === entry.name);
      if (known) known.ignored.push(entry.source);
      else out.overridden.push({ name: entry.name, used: first.source, ignored: [entry.source] });
    }
  }
  // Declaration order: files from the lowest layer up, so an included file's servers come first
  // as they were written; the options last.
  out.servers = [...layers.slice(1).reverse().flat(), ...fromOptions].filter((e) => seen.get(e.name) === e);
  return out;
}

interface SourceContext {
  origin: Exclude<ServerOrigin, 'options'>;
  dialect: Dialect;
  required: boolean;
  env: NodeJS.ProcessEnv;
  root: string;
  folders: { workspaceFolder: string; userHome: string };
  out: LoadedServers;
}

/** The entries of one file, or undefined when it is missing or cannot be read (then a problem says why). */
async function readSource(file: string, c: SourceContext): Promise<ServerEntry[] | undefined> {
  const shown = shownPath(file);
  const problem = (message: string, hint: string, cause?: unknown): undefined => {
    c.out.problems.push({ file, error: new OryxError('ORYX_E_MCP_CONFIG_INVALID', `${shown}: ${message}`, { hint, cause, data: { file } }) });
    return undefined;
  };
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return problem(`cannot be read: ${errorMessage(error)}`, 'Check the permissions of the file.', error);
    if (c.required) return problem('the servers file named by the mcp() option "file" does not exist', 'Create the file (with a top-level servers: map), fix the path, or drop the option to use <workspace>/mcp_servers.yaml.');
    return undefined;
  }

  let raw: unknown;
  const json = file.endsWith('.json');
  try {
    raw = json ? parseJsonc(text) : (await import('@oryxos/schema-kit/yaml')).parse(text);
  } catch (error) {
    return problem(`not valid ${json ? 'JSON' : 'YAML'}: ${errorMessage(error)}`, `Fix the ${json ? 'JSON' : 'YAML'} syntax at the place the message names; the other servers are used meanwhile.`, error);
  }
  if (raw === null || raw === undefined) return [];
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return problem(`must be a map with servers: (or mcpServers:) at the top (was ${Array.isArray(raw) ? 'a list' : typeof raw})`, 'Put the servers under a top-level servers: key.');
  }
  const top = serversKey(raw as Record<string, unknown>, c.dialect);
  for (const note of top.notes) c.out.notes.push(`${shown}: ${note}`);
  if (top.problem) return problem(`${top.problem.field} ${top.problem.problem}`, `Fix that field in ${shown}; every server needs command (stdio) or url (remote).`);
  const servers = top.key ? (raw as Record<string, unknown>)[top.key] : undefined;
  if (servers === null || servers === undefined) return [];
  if (typeof servers !== 'object' || Array.isArray(servers)) return problem(`${top.key} must be a map of server names to entries`, `Write ${top.key}: as name: { command: …, args: […] } entries.`);

  // Entries written in another client's shape (mcpServers: in OryxOS's file, anything in an included file).
  const dialect: Dialect = top.key === 'mcpServers' ? 'foreign' : c.dialect;
  const entries: ServerEntry[] = [];
  for (const [written, value] of Object.entries(servers as Record<string, unknown>)) {
    const name = dialect === 'foreign' ? foreignName(written) : written;
    const notes = name === written ? [] : [`its name "${written}" is used as "${name}" (tool names take letters, digits, - and _)`];
    if (entries.some((e) => e.name === name)) {
      entries.push(failed(name, {}, c, file, { field: `${top.key}.${written}`, problem: `has the same name as another server in this file (${name})` }, notes));
      continue;
    }
    entries.push(await entryOf(name, value, dialect, c, file, notes));
  }
  for (const e of entries) for (const note of e.notes ?? []) c.out.notes.push(`${shown}: server "${e.name}": ${note}`);
  return entries;
}

/** One entry: normalized, checked, expanded; never throws. */
async function entryOf(name: string, value: unknown, dialect: Dialect, c: SourceContext, file: string, notes: string[]): Promise<ServerEntry> {
  const shown = shownPath(file);
  const normalized = normalizeEntry(name, value, dialect);
  notes.push(...normalized.notes);
  if (normalized.problem || !normalized.config) return failed(name, asConfig(value), c, file, normalized.problem!, notes);
  const server = normalized.config;
  const p = serverProblem(name, server);
  if (p) return failed(name, server, c, file, p, notes);
  try {
    const used: [string, string][] = [];
    const config = expandServer(name, server, c.env, shown, used, c.folders);
    const u = (config.url !== undefined ? urlProblem(name, config.url) : undefined)
      ?? (config.oauth && config.oauth.clientMetadataUrl !== undefined ? urlProblem(name, config.oauth.clientMetadataUrl, 'oauth.clientMetadataUrl') : undefined);
    if (u) return failed(name, config, c, file, u, notes);
    if (config.envFile !== undefined) {
      const envPath = path.resolve(c.root, config.envFile);
      let fromFile: Record<string, string>;
      try {
        fromFile = parseEnvFile(await readFile(envPath, 'utf8'));
      } catch (error) {
        return failed(name, config, c, file, { field: `servers.${name}.envFile`, problem: `cannot be read (${shownPath(envPath)}: ${errorMessage(error)})` }, notes);
      }
      // What the entry says itself wins over the file, as in VS Code.
      config.env = { ...fromFile, ...config.env };
      c.out.secrets.push(...Object.values(fromFile));
    }
    c.out.secrets.push(...secretValues(config, used));
    return { name, config, origin: c.origin, source: file, ...(notes.length ? { notes } : {}) };
  } catch (error) {
    if (!isOryxError(error)) throw error;
    return { name, config: server, origin: c.origin, source: file, error, ...(notes.length ? { notes } : {}) };
  }
}

function failed(name: string, config: McpServerConfig, c: SourceContext, file: string, p: FieldProblem, notes: string[]): ServerEntry {
  const shown = shownPath(file);
  const error = new OryxError('ORYX_E_MCP_CONFIG_INVALID', `${shown}: ${p.field} ${p.problem}`, {
    hint: `Fix that field in ${shown}; the other servers are used meanwhile. Every server needs command (stdio) or url (remote).`,
    data: { file, field: p.field },
  });
  return { name, config, origin: c.origin, source: file, error, ...(notes.length ? { notes } : {}) };
}

/** Whatever of a bad entry can still describe it in `oryx mcp list` (its command or url). */
function asConfig(value: unknown): McpServerConfig {
  if (!value || typeof value !== 'object') return {};
  const v = value as Record<string, unknown>;
  const url = typeof v.url === 'string' ? v.url : typeof v.serverUrl === 'string' ? v.serverUrl : undefined;
  if (url !== undefined) return { url };
  return typeof v.command === 'string' ? { command: v.command, ...(Array.isArray(v.args) ? { args: v.args.filter((a): a is string => typeof a === 'string') } : {}) } : {};
}
