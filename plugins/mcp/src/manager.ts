import { OryxError } from '@oryxos/provider-spec';
import { matchesToolPattern } from '@oryxos/schema-kit';
import type { AgentDefinition, Tool, ToolContext, ToolSourceStatus } from '@oryxos/kernel';
import type { Authorizer } from './auth/oauth.ts';
import type { ClientHooks, ElicitHandler, McpElicitResult, ProgressHandler } from './client-hooks.ts';
import { shownPath, type ConfigProblem, type ServerEntry } from './config-file.ts';
import type { McpResourceContent, McpToolResult } from './content.ts';
import { serverMayMatch } from './names.ts';
import type {
  CallOptions, McpPromptInfo, McpPromptResult, McpResourceInfo, McpResourceTemplateInfo, McpServerConnection, McpServerStatus, McpToolInfo, ServerDeps,
} from './server.ts';

/** What the manager knows besides its servers. */
interface ManagerExtra {
  /** OryxOS's servers file, when one was read. */
  file?: string;
  /** OryxOS's servers file, read or not: where `oryx mcp add` writes. */
  serversFile?: string;
  problems?: ConfigProblem[];
  maxTools: number;
  /** Where OAuth tokens are kept (default: the user's state folder). */
  tokenDir?: string;
}

/** Resources named in the description of `<server>__read_resource`. */
const LISTED_RESOURCES = 25;

/**
 * Every declared MCP server, and the one way the kernel, the CLI and other plugins use them.
 * Provided as the `mcp` service. The host plugs in what needs a person at run time:
 * `onElicit` (a server asks the person a question), `onProgress` (a call reports progress),
 * `authorizer` (a browser sign-in shows its URL).
 *
 * @example
 * const mcp = kernel.service('mcp');
 * mcp.onElicit = async (server, request) => ({ action: 'accept', content: await askPerson(request) });
 * await mcp.connectAll();
 * const result = await mcp.call('filesystem', 'list_directory', { path: '.' });
 */
export class McpManager {
  private readonly servers = new Map<string, McpServerConnection>();
  /** Why a server's tools were left out for an agent (over `limits.maxTools`), by server. */
  private readonly limited = new Map<string, string>();

  /**
   * The manager of these servers. The code that connects them (server.ts; the MCP SDK loads
   * later, at a server's first start) is loaded only when a server is declared: a project that
   * declares none, like the one `oryx init` writes, never compiles it.
   */
  static async create(entries: ServerEntry[], deps: Omit<ServerDeps, 'hooks' | 'tokens'>, extra: ManagerExtra): Promise<McpManager> {
    const hooks: ClientHooks = {};
    const inFlight = new Map<string, ToolContext>();
    if (!entries.length) return new McpManager([], hooks, extra, inFlight);
    const [{ McpServerConnection }, { TokenStore, defaultTokenDir }] = await Promise.all([import('./server.ts'), import('./auth/token-store.ts')]);
    const tokens = new TokenStore(extra.tokenDir ?? defaultTokenDir());
    return new McpManager(entries.map((entry) => new McpServerConnection(entry, { ...deps, hooks, tokens })), hooks, extra, inFlight);
  }

  private constructor(
    servers: McpServerConnection[], private readonly hooks: ClientHooks, private readonly extra: ManagerExtra,
    private readonly inFlight: Map<string, ToolContext>,
  ) {
    for (const server of servers) this.servers.set(server.name, server);
  }

  /** Declared server names, in declaration order. */
  get names(): string[] { return [...this.servers.keys()]; }

  /** OryxOS's servers file, when one was read. */
  get file(): string | undefined { return this.extra.file; }

  /** OryxOS's servers file, read or not: where `oryx mcp add` and `import` write. */
  get serversFile(): string | undefined { return this.extra.serversFile; }

  /** Files that could not be read at all; their servers are unknown, everything else works. */
  get problems(): ConfigProblem[] { return [...(this.extra.problems ?? [])]; }

  /**
   * Answers servers' elicitation requests (set it before servers start: the capability is
   * declared at the handshake). Without it OryxOS declares no elicitation capability.
   */
  get onElicit(): ElicitHandler | undefined { return this.hooks.onElicit; }
  set onElicit(handler: ElicitHandler | undefined) { this.hooks.onElicit = handler; }

  /**
   * Routes servers' elicitation to the person behind the door of the run whose call it came
   * during (the tool context's `ask`): a host whose doors can answer a form calls this before
   * servers start. A door that cannot ask answers nothing, and the server gets `cancel`.
   *
   * @example
   * kernel.service('mcp').askThroughDoors();
   */
  askThroughDoors(): void {
    this.hooks.onElicit = async (server, request, { calls }) => {
      const ctx = calls.map((c) => (c.toolCallId ? this.inFlight.get(c.toolCallId) : undefined)).filter((c) => c !== undefined).at(-1);
      if (!ctx) return undefined;
      const answer = await ctx.ask({ kind: 'input', source: server, message: request.message, schema: request.requestedSchema ?? { type: 'object', properties: {} } });
      if (!answer || !('action' in answer)) return undefined;
      return answer.action === 'accept' ? { action: 'accept', content: answer.content as McpElicitResult['content'] } : { action: answer.action };
    };
  }

  /** Sees every progress notification of every call (each call also takes its own `onProgress`). */
  get onProgress(): ProgressHandler | undefined { return this.hooks.onProgress; }
  set onProgress(handler: ProgressHandler | undefined) { this.hooks.onProgress = handler; }

  /** Shows a browser sign-in's URL to a person; without it a needed sign-in is ORYX_E_MCP_AUTH_REQUIRED. */
  get authorizer(): Authorizer | undefined { return this.hooks.authorizer; }
  set authorizer(authorizer: Authorizer | undefined) { this.hooks.authorizer = authorizer; }

  /** One server; ORYX_E_MCP_SERVER_UNKNOWN names the known ones. */
  server(name: string): McpServerConnection {
    const server = this.servers.get(name);
    if (server) return server;
    const known = this.names;
    throw new OryxError('ORYX_E_MCP_SERVER_UNKNOWN', `No MCP server named "${name}"`, {
      hint: known.length ? `Declared servers: ${known.join(', ')}.` : 'No servers are declared: add one with oryx mcp add NAME -- COMMAND …, or under servers: in .oryxos/mcp_servers.yaml.',
    });
  }

  /** Health of every server, without connecting anything. */
  status(): McpServerStatus[] {
    return [...this.servers.values()].map((s) => {
      const status = s.status();
      const note = this.limited.get(s.name);
      return note ? { ...status, warning: note } : status;
    });
  }

  /** For `oryx tools` and `oryx doctor`: each server, and each file that could not be read. */
  sourceStatus(): ToolSourceStatus[] {
    return [
      ...this.problems.map((p) => ({ name: shownPath(p.file), ok: false, reason: p.error.message, tools: 0 })),
      ...this.status().map((s) => ({ name: s.name, ok: s.ok, tools: s.tools, ...(s.reason ? { reason: s.reason } : {}) })),
    ];
  }

  /** Connects one server (if needed) and returns its status; throws why it is unavailable. */
  async connect(name: string, signal?: AbortSignal): Promise<McpServerStatus> {
    const server = this.server(name);
    await server.ready(signal);
    return server.status();
  }

  /** Connects every enabled server in parallel; failures are reported in the statuses, never thrown. */
  async connectAll(signal?: AbortSignal): Promise<McpServerStatus[]> {
    await Promise.allSettled([...this.servers.values()].filter((s) => s.enabled).map((s) => s.ready(signal)));
    return this.status();
  }

  /** The tools a server offers, connecting it first. */
  async tools(name: string, signal?: AbortSignal): Promise<McpToolInfo[]> {
    return this.server(name).listTools(signal);
  }

  /** A tool by its kernel name (`<server>__<tool>`), with its title and annotations, among servers that have listed theirs. */
  async toolInfo(exposed: string): Promise<McpToolInfo | undefined> {
    for (const server of this.servers.values()) {
      if (!exposed.startsWith(`${server.name}__`) || server.status().state !== 'ready') continue;
      return (await server.listTools()).find((t) => t.exposed === exposed);
    }
    return undefined;
  }

  /**
   * Calls a tool by the server's name for it (or its `<server>__<tool>` name), directly: no
   * agent, so no `beforeTool`/`afterTool` (agents' calls go through the kernel executor).
   */
  async call(name: string, tool: string, args: Record<string, unknown> = {}, options: CallOptions = {}): Promise<McpToolResult> {
    const server = this.server(name);
    const offered = await server.listTools(options.signal);
    const own = server.resolveTool(tool);
    if (!own) {
      throw new OryxError('ORYX_E_MCP_TOOL_UNKNOWN', `MCP server "${name}" offers no tool "${tool}"`, {
        hint: offered.length ? `Its tools: ${offered.map((t) => t.name).join(', ')}.` : 'It offers no tools (check its tools: allow-list).',
      });
    }
    const info = offered.find((t) => t.name === own);
    return server.call(own, args, { repeatable: repeatable(info), ...options });
  }

  /** A server's resources and resource templates. */
  async resources(name: string, signal?: AbortSignal): Promise<{ resources: McpResourceInfo[]; templates: McpResourceTemplateInfo[] }> {
    return this.server(name).listResources(signal);
  }

  /** The contents of one resource of a server. */
  async readResource(name: string, uri: string, signal?: AbortSignal): Promise<McpResourceContent[]> {
    return this.server(name).readResource(uri, signal);
  }

  /** A server's prompts. */
  async prompts(name: string, signal?: AbortSignal): Promise<McpPromptInfo[]> {
    return this.server(name).listPrompts(signal);
  }

  /** One prompt of a server, filled in with its arguments. */
  async getPrompt(name: string, prompt: string, args: Record<string, string> = {}, signal?: AbortSignal): Promise<McpPromptResult> {
    return this.server(name).getPrompt(prompt, args, signal);
  }

  /** Signs in to a remote server (OAuth, through {@link authorizer}), then connects it. `force` forgets the stored sign-in first. */
  async login(name: string, options: { force?: boolean; signal?: AbortSignal } = {}): Promise<McpServerStatus> {
    return this.server(name).login(options);
  }

  /** Revokes (where the authorization server can) and deletes a server's stored tokens. */
  async logout(name: string): Promise<{ removed: boolean; revoked: number; revocationError?: string }> {
    return this.server(name).logout();
  }

  /**
   * Kernel tools for an agent. Only servers that the agent's allow-list could match are
   * connected (in parallel, each within its connect timeout); a server that fails is left
   * out, and its status says why. The agent's `tools:` list is applied first, then
   * `limits.maxTools`: a server with 300 tools of which the agent lists three gives three.
   * `<server>__read_resource` is offered only to an agent that names it exactly.
   */
  async toolsForAgent(agent: AgentDefinition, signal?: AbortSignal): Promise<Tool[]> {
    const wanted = [...this.servers.values()].filter((s) => s.enabled && agent.tools.some((p) => serverMayMatch(p, s.name)));
    const lists = await Promise.all(wanted.map(async (server) => {
      let infos: McpToolInfo[];
      try {
        infos = await server.listTools(signal);
      } catch {
        return []; // the server logged a warning when it failed; its status keeps the reason
      }
      const matching = infos.filter((info) => agent.tools.some((p) => matchesToolPattern(info.exposed, p)));
      if (matching.length > this.extra.maxTools) {
        const note = `agent "${agent.name}" gets none of the ${matching.length} tools of MCP server "${server.name}" its tools: list matches: that is more than limits.maxTools (${this.extra.maxTools}). List fewer in its tools: (e.g. ${server.name}__read_*), or raise limits.maxTools in mcp({ limits: { maxTools } })`;
        this.limited.set(server.name, note);
        server.warn(note);
        return [];
      }
      this.limited.delete(server.name);
      const tools = (await server.usable(matching)).map((info): Tool => ({
        name: info.exposed,
        description: info.description,
        inputSchema: info.inputSchema,
        source: 'mcp',
        timeoutMs: server.timeoutMs,
        // Checked again per call with the calling agent, so an agent's sandbox: can refuse a server.
        actions: () => [server.action],
        execute: async (args, ctx) => {
          this.inFlight.set(ctx.toolCallId, ctx);
          try {
            return await server.call(info.name, args, {
              signal: ctx.signal, timeoutMs: server.timeoutMs, repeatable: repeatable(info),
              call: { toolCallId: ctx.toolCallId, sessionId: ctx.run.sessionId, agent: ctx.run.agent.name }, headers: ctx.headers,
              // A server's progress also starts the call's time again (the kernel's tool timeout).
              onProgress: (p) => ctx.progress({ progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message ? { message: p.message } : {}) }),
            });
          } finally {
            this.inFlight.delete(ctx.toolCallId);
          }
        },
      }));
      const reader = `${server.name}__read_resource`;
      if (agent.tools.includes(reader) && server.hasResources && !infos.some((i) => i.exposed === reader)) tools.push(await readResourceTool(server, reader, signal));
      return tools;
    }));
    return lists.flat();
  }

  /** Shuts every server down in parallel. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.servers.values()].map((s) => s.close()));
  }

  /** Kills every server process tree synchronously (the `exit` safety net). */
  killSync(): void {
    for (const s of this.servers.values()) s.killSync();
  }
}

/** A tool that may run twice without harm, as its server says: read-only or idempotent. */
function repeatable(info: McpToolInfo | undefined): boolean {
  return info?.annotations?.readOnlyHint === true || info?.annotations?.idempotentHint === true;
}

/** `<server>__read_resource`: reads one resource by URI; its description names what there is. */
async function readResourceTool(server: McpServerConnection, name: string, signal?: AbortSignal): Promise<Tool> {
  let listed = '';
  try {
    const { resources, templates } = await server.listResources(signal);
    const shown = resources.slice(0, LISTED_RESOURCES).map((r) => `${r.uri}${r.title ?? r.name ? ` (${r.title ?? r.name})` : ''}`);
    if (resources.length > LISTED_RESOURCES) shown.push(`… ${resources.length - LISTED_RESOURCES} more`);
    listed = [shown.length ? ` Resources: ${shown.join('; ')}.` : '', templates.length ? ` URI templates: ${templates.map((t) => t.uriTemplate).join('; ')}.` : ''].join('');
  } catch {
    // the description stays general; reading still works
  }
  return {
    name,
    description: `Read a resource of MCP server "${server.name}" by its URI; text comes back as text, images and files as attachments.${listed}`,
    inputSchema: { type: 'object', properties: { uri: { type: 'string', description: 'The resource URI.' } }, required: ['uri'], additionalProperties: false },
    source: 'mcp',
    timeoutMs: server.timeoutMs,
    actions: () => [server.action],
    execute: (args, ctx) => server.readResourceResult(String(args.uri), ctx.signal),
  };
}

