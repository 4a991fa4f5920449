/**
 * Read-only resources on the MCP server: the exposed agents' sessions (`oryx://sessions/{id}`),
 * their long-term memory (`oryx://memory/{agent}`, from the `memory` service), and the
 * {@link ResourceSource}s the config hands over. What a client may read is what these list or
 * their templates match, nothing else.
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ResourceContents, ResourceSource } from '@oryxos/contracts';
import type { PluginContext } from '@oryxos/kernel';
import type { ResolvedMcpServerOptions } from './options.ts';

/** How many sessions `resources/list` shows (newest first); older ones are still read by id. */
const LISTED_SESSIONS = 50;

export const SESSION_URI = 'oryx://sessions/';
export const MEMORY_URI = 'oryx://memory/';

/** What the resources of one server answer besides the SDK's list and read: whether a URI is one of them. */
export interface Resources { has(uri: string): Promise<boolean>; read(uri: string): Promise<ResourceContents[] | undefined> }

/**
 * The sources the options enable, as one: the built-in ones first, then the config's.
 *
 * @example
 * const all = resourceSources(ctx, options);
 * await all[0].read('oryx://sessions/3f2…');
 */
export function resourceSources(ctx: PluginContext, o: ResolvedMcpServerOptions): ResourceSource[] {
  const agents = new Set(o.agents.map((a) => a.agent));
  const sources: ResourceSource[] = [];
  if (o.sessions) sources.push(sessionsSource(ctx, agents));
  if (o.memory) sources.push(memorySource(ctx, agents));
  return [...sources, ...o.sources];
}

function sessionsSource(ctx: PluginContext, agents: Set<string>): ResourceSource {
  const store = () => ctx.service('sessions');
  return {
    name: 'sessions',
    templates: [{ uriTemplate: `${SESSION_URI}{id}`, name: 'session', title: 'OryxOS session', description: 'A session of an exposed agent: its messages as JSON', mimeType: 'application/json' }],
    async list() {
      const sessions = (await store().list({ limit: LISTED_SESSIONS * 4 })).items.filter((s) => agents.has(s.agent)).slice(0, LISTED_SESSIONS);
      return sessions.map((s) => ({
        uri: `${SESSION_URI}${s.id}`, name: `session ${s.id.slice(0, 8)}`, title: s.title || `${s.agent} session`,
        description: `Agent ${s.agent}, updated ${s.updatedAt}${s.tags?.length ? `, tags ${s.tags.join(' ')}` : ''}`, mimeType: 'application/json',
      }));
    },
    async complete(_template, _variable, value) {
      const sessions = (await store().list({ limit: LISTED_SESSIONS * 4 })).items.filter((s) => agents.has(s.agent));
      return sessions.map((s) => s.id).filter((id) => id.startsWith(value)).slice(0, 100);
    },
    async read(uri) {
      if (!uri.startsWith(SESSION_URI)) return undefined;
      const id = decodeURIComponent(uri.slice(SESSION_URI.length));
      const session = await store().get(id);
      // Sessions of agents that are not exposed stay out of reach, as if they did not exist.
      if (!session || !agents.has(session.agent)) return undefined;
      const messages = (await store().messages(id)).map((m) => m.message);
      return [{ uri, mimeType: 'application/json', text: JSON.stringify({ id: session.id, agent: session.agent, tags: session.tags ?? [], messages }, null, 2) }];
    },
  };
}

function memorySource(ctx: PluginContext, agents: Set<string>): ResourceSource {
  return {
    name: 'memory',
    templates: [{ uriTemplate: `${MEMORY_URI}{agent}`, name: 'memory', title: 'OryxOS agent memory', description: 'The long-term memory of an exposed agent (its agent-wide zones)', mimeType: 'text/markdown' }],
    async list() {
      if (!ctx.hasService('memory')) return [];
      return [...agents].map((agent) => ({ uri: `${MEMORY_URI}${agent}`, name: `memory of ${agent}`, mimeType: 'text/markdown' }));
    },
    async complete(_template, _variable, value) {
      return [...agents].filter((a) => a.startsWith(value));
    },
    async read(uri) {
      if (!uri.startsWith(MEMORY_URI) || !ctx.hasService('memory')) return undefined;
      const agent = decodeURIComponent(uri.slice(MEMORY_URI.length));
      if (!agents.has(agent)) return undefined;
      const zones = await ctx.service('memory').read(agent, { scope: 'agent' });
      const section = (title: string, entries: { date: string; text: string }[]) => `## ${title}\n\n${entries.map((e) => `- ${e.date}: ${e.text}`).join('\n') || '(empty)'}`;
      return [{ uri, mimeType: 'text/markdown', text: `# Memory of ${agent}\n\n${section('Core', zones.core)}\n\n${section('Archive', zones.archive)}\n` }];
    },
  };
}

/** Whether a URI matches an RFC 6570 template of simple `{var}` expressions (each one path segment or more). */
function matches(template: string, uri: string): boolean {
  const pattern = template.split(/\{[^}]+\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+');
  return new RegExp(`^${pattern}$`).test(uri);
}

/**
 * Registers every source's resources and templates on the server; returns how to tell a URI
 * this server serves (for subscriptions) and to read one (for prompts that embed it).
 */
export async function registerResources(server: McpServer, sources: ResourceSource[]): Promise<Resources> {
  const toResult = (contents: ResourceContents[]): ReadResourceResult => ({
    contents: contents.map((c) => (c.blob !== undefined ? { uri: c.uri, ...(c.mimeType ? { mimeType: c.mimeType } : {}), blob: c.blob } : { uri: c.uri, ...(c.mimeType ? { mimeType: c.mimeType } : {}), text: c.text ?? '' })),
  });
  const notFound = (uri: string) => new Error(`No resource ${uri}`);
  for (const source of sources) {
    for (const r of await source.list()) {
      // A listed URI a template of the same source covers is served by the template (its list shows it).
      if ((source.templates ?? []).some((t) => matches(t.uriTemplate, r.uri))) continue;
      server.registerResource(`${source.name}:${r.uri}`, r.uri, { title: r.title ?? r.name, ...(r.description ? { description: r.description } : {}), ...(r.mimeType ? { mimeType: r.mimeType } : {}) },
        async (uri) => toResult(await source.read(uri.href) ?? (() => { throw notFound(uri.href); })()));
    }
    for (const t of source.templates ?? []) {
      const variables = [...t.uriTemplate.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      const template = new ResourceTemplate(t.uriTemplate, {
        list: async () => ({ resources: (await source.list()).filter((r) => matches(t.uriTemplate, r.uri)) }),
        ...(source.complete ? { complete: Object.fromEntries(variables.map((v) => [v, (value: string) => source.complete!(t.uriTemplate, v, value ?? '')])) } : {}),
      });
      server.registerResource(`${source.name}:${t.name}`, template, { title: t.title ?? t.name, ...(t.description ? { description: t.description } : {}), ...(t.mimeType ? { mimeType: t.mimeType } : {}) },
        async (uri) => toResult(await source.read(uri.href) ?? (() => { throw notFound(uri.href); })()));
    }
  }
  const read = async (uri: string) => {
    for (const source of sources) {
      const fixed = (await source.list()).some((r) => r.uri === uri);
      if (fixed || (source.templates ?? []).some((t) => matches(t.uriTemplate, uri))) {
        const contents = await source.read(uri);
        if (contents) return contents;
      }
    }
    return undefined;
  };
  return { read, has: async (uri) => (await read(uri)) !== undefined };
}
