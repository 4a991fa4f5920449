import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OryxError, errorMessage } from '@oryxos/provider-spec';
import type { Document, YAMLMap } from '@oryxos/schema-kit/yaml';
import { foreignName, normalizeEntry, serversKey } from './config-dialects.ts';
import { shownPath } from './config-file.ts';
import { envName } from './env.ts';
import { parseJsonc } from './jsonc.ts';
import { SERVER_FIELDS, serverProblem, urlProblem, type McpServerConfig } from './options.ts';

/**
 * Changes to OryxOS's servers file (`oryx mcp add`, `remove`, `import`), made on the YAML
 * document so its comments and layout stay, written atomically.
 *
 * @example
 * await addServer('.oryxos/mcp_servers.yaml', 'fs', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] });
 */
export async function addServer(file: string, name: string, server: McpServerConfig, options: { force?: boolean } = {}): Promise<{ replaced: boolean }> {
  const p = serverProblem(name, server);
  if (p) throw new OryxError('ORYX_E_MCP_CONFIG_INVALID', `${p.field} ${p.problem}`, { hint: 'Fix the name or the arguments of oryx mcp add.', data: { field: p.field } });
  const { doc, servers } = await open(file);
  const replaced = servers.has(name);
  if (replaced && !options.force) {
    throw new OryxError('ORYX_E_MCP_SERVER_EXISTS', `${shownPath(file)} already declares a server "${name}"`, {
      hint: `Pick another name, or run it again with --force to replace "${name}".`,
    });
  }
  servers.set(name, node(doc, server));
  await save(file, doc);
  return { replaced };
}

/** Removes a server from OryxOS's servers file; false when it was not there. */
export async function removeServer(file: string, name: string): Promise<boolean> {
  const { doc, servers } = await open(file);
  if (!servers.has(name)) return false;
  servers.delete(name);
  await save(file, doc);
  return true;
}

/** One server of another client's file, as `oryx mcp import` writes it, or why it was skipped. */
export interface Imported {
  name: string;
  /** The name it had in that file, when it had to change. */
  from?: string;
  server?: McpServerConfig;
  skipped?: string;
  /** What to do next (a variable to set). */
  notes: string[];
}

/**
 * The servers of a Claude Desktop / Claude Code / VS Code / Cursor file, in OryxOS's shape,
 * with references kept as references: `${env:X}` becomes `${X}`, a VS Code `${input:api-key}`
 * becomes `${API_KEY}` (to set in the environment). Nothing is expanded: secrets stay out of
 * the file they are written to.
 */
export async function readForeignServers(file: string): Promise<Imported[]> {
  let raw: unknown;
  try {
    const text = await readFile(file, 'utf8');
    raw = file.endsWith('.json') ? parseJsonc(text) : (await import('@oryxos/schema-kit/yaml')).parse(text);
  } catch (error) {
    throw new OryxError('ORYX_E_MCP_CONFIG_INVALID', `${shownPath(file)}: cannot be read as a servers file: ${errorMessage(error)}`, {
      hint: 'Give a claude_desktop_config.json, .mcp.json, .vscode/mcp.json or .cursor/mcp.json.', cause: error,
    });
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new OryxError('ORYX_E_MCP_CONFIG_INVALID', `${shownPath(file)}: must be an object with mcpServers or servers at the top`, { hint: 'Give a Claude, VS Code or Cursor MCP file.' });
  }
  const top = serversKey(raw as Record<string, unknown>, 'foreign');
  if (top.problem || !top.key) {
    throw new OryxError('ORYX_E_MCP_CONFIG_INVALID', `${shownPath(file)}: ${top.problem ? `${top.problem.field} ${top.problem.problem}` : 'has no mcpServers or servers'}`, { hint: 'Give a Claude, VS Code or Cursor MCP file.' });
  }
  const entries = (raw as Record<string, unknown>)[top.key];
  if (!entries || typeof entries !== 'object') return [];
  return Object.entries(entries as Record<string, unknown>).map(([written, value]): Imported => {
    const name = foreignName(written);
    const normalized = normalizeEntry(name, value, 'foreign');
    const notes = [...normalized.notes];
    if (normalized.problem || !normalized.config) return { name, ...(name !== written ? { from: written } : {}), skipped: `${normalized.problem!.field} ${normalized.problem!.problem}`, notes };
    const server = rewriteReferences(normalized.config, notes);
    const p = serverProblem(name, server) ?? (server.url !== undefined && !server.url.includes('${') ? urlProblem(name, server.url) : undefined);
    if (p) return { name, ...(name !== written ? { from: written } : {}), skipped: `${p.field} ${p.problem}`, notes };
    return { name, ...(name !== written ? { from: written } : {}), server, notes };
  });
}

/** `${env:X}` → `${X}`; `${input:id}` → `${ID}`, noting the variable to set. */
function rewriteReferences(server: McpServerConfig, notes: string[]): McpServerConfig {
  const inputs = new Set<string>();
  const one = (v: string) => v.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, '${$1}').replace(/\$\{input:([^}]*)\}/g, (_, id: string) => {
    inputs.add(envName(id));
    return `\${${envName(id)}}`;
  });
  const map = (r?: Record<string, string>) => (r ? Object.fromEntries(Object.entries(r).map(([k, v]) => [k, one(v)])) : undefined);
  const out: McpServerConfig = {
    ...server,
    ...(server.command ? { command: one(server.command) } : {}),
    ...(server.args ? { args: server.args.map(one) } : {}),
    ...(server.env ? { env: map(server.env) } : {}),
    ...(server.url ? { url: one(server.url) } : {}),
    ...(server.headers ? { headers: map(server.headers) } : {}),
    ...(server.cwd ? { cwd: one(server.cwd) } : {}),
    ...(server.envFile ? { envFile: one(server.envFile) } : {}),
  };
  for (const v of inputs) notes.push(`set ${v} in the environment (it was a VS Code input prompt)`);
  return out;
}

async function open(file: string): Promise<{ doc: Document; servers: YAMLMap }> {
  const YAML = await import('@oryxos/schema-kit/yaml');
  let text = '';
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const doc = YAML.parseDocument(text || 'servers: {}\n');
  if (doc.errors.length) {
    throw new OryxError('ORYX_E_MCP_CONFIG_INVALID', `${shownPath(file)}: not valid YAML: ${doc.errors[0]!.message}`, { hint: 'Fix the YAML syntax first; oryx mcp add keeps the rest of the file as it is.' });
  }
  if (!YAML.isMap(doc.contents)) doc.contents = doc.createNode({ servers: {} }) as never;
  const root = doc.contents as unknown as YAMLMap;
  const key = root.has('mcpServers') && !root.has('servers') ? 'mcpServers' : 'servers';
  let servers: unknown = root.get(key, true);
  if (!YAML.isMap(servers)) {
    servers = doc.createNode({});
    root.set(key, servers);
  }
  (servers as YAMLMap).flow = false;
  return { doc, servers: servers as YAMLMap };
}

/** A server as YAML: fields in the README's order, lists on one line. */
function node(doc: Document, server: McpServerConfig): unknown {
  const ordered = Object.fromEntries(SERVER_FIELDS.filter((k) => server[k] !== undefined).map((k) => [k, server[k]]));
  const n = doc.createNode(ordered) as YAMLMap;
  for (const key of ['args', 'tools']) {
    const seq = n.get(key, true) as { flow?: boolean } | undefined;
    if (seq) seq.flow = true;
  }
  return n;
}

async function save(file: string, doc: Document): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temp, doc.toString());
  await rename(temp, file);
}
