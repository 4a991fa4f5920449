/**
 * The MCP side, on the official SDK's `McpServer`: one tool per exposed agent and per exposed
 * OryxOS tool (each call a run, `call.ts`), the skills as prompts, the resources, log levels.
 * Loaded when a transport is first served, never by the entry.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, SetLevelRequestSchema, SubscribeRequestSchema, UnsubscribeRequestSchema,
  type LoggingLevel,
} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { AgentDefinition, PluginContext, Tool } from '@oryxos/kernel';
import { errorMessage } from '@oryxos/provider-spec';
import { ask, call, callTool, LEVELS } from './call.ts';
import type { Connection, McpDoor } from './door.ts';
import { mcpServeError } from './errors.ts';
import type { ExposedAgent } from './options.ts';
import { registerPrompts } from './prompts.ts';
import { registerResources, resourceSources, SESSION_URI } from './resources.ts';

const inputSchema = {
  message: z.string().min(1).describe('What to tell or ask the agent.'),
  session: z.string().min(1).optional().describe('The sessionId a previous call returned, to go on in that conversation; omit it to start a new one.'),
};

const outputSchema = {
  answer: z.string().describe('The agent\'s answer (empty when the run stopped short of one).'),
  sessionId: z.string().describe('Pass it as session to continue this conversation.'),
  runId: z.string(),
  stopReason: z.string().describe('final, limit, budget, loop, length, content_filter, suspended (waits for an approval), aborted or error.'),
  usage: z.looseObject({ inputTokens: z.number(), outputTokens: z.number() }),
  notice: z.string().optional().describe('Why the run stopped short of an answer.'),
  approval: z.object({ id: z.string(), tool: z.string(), reason: z.string(), approve: z.string(), deny: z.string() }).optional()
    .describe('Set when the run waits for a person\'s approval: how to decide it.'),
  error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional() }).optional(),
};

/**
 * An MCP server whose tools are the exposed agents (and the exposed OryxOS tools), with the
 * skills as prompts and the resources the options enable. Throws ORYX_E_MCPSERVE_UNKNOWN_AGENT,
 * ORYX_E_MCPSERVE_UNKNOWN_TOOL or ORYX_E_MCPSERVE_UNKNOWN_PROMPT for a name the workspace lacks.
 */
export async function createServer(door: McpDoor, ctx: PluginContext, via: { user?: string; busy?(delta: 1 | -1): void } = {}): Promise<McpServer> {
  const o = door.options;
  const names = await ctx.agents.names();
  const missing = o.agents.filter((a) => !names.includes(a.agent));
  if (missing.length) {
    throw mcpServeError('ORYX_E_MCPSERVE_UNKNOWN_AGENT', `mcpServer(): no agent ${missing.map((a) => `"${a.agent}"`).join(', ')} in ${ctx.agents.agentsDir} (agents: ${names.join(', ') || 'none'})`);
  }
  const direct = await exposedTools(ctx, o.tools, o.toolAgent);
  const server = new McpServer({ name: o.serverName, version: door.version, title: 'OryxOS' }, {
    capabilities: { tools: {}, logging: {} },
    instructions: `Each ask_ tool hands a message to an OryxOS agent (${o.agents.map((a) => a.agent).join(', ')}), which may use its own tools before it answers. `
      + 'Pass the sessionId of a result as session to continue that conversation.'
      + (direct.length ? ` The other tools are OryxOS tools, each call run as agent ${o.toolAgent} would make it (its sandbox and approvals).` : ''),
  });
  // No log messages until the client asks for them with logging/setLevel.
  let level: LoggingLevel | undefined;
  server.server.setRequestHandler(SetLevelRequestSchema, async (request) => { level = request.params.level; return {}; });
  const wants = (l: LoggingLevel) => level !== undefined && LEVELS.indexOf(l) >= LEVELS.indexOf(level);

  const agents = new Map<string, { exposed: ExposedAgent; definition: AgentDefinition }>();
  for (const exposed of o.agents) agents.set(exposed.tool, { exposed, definition: await ctx.agents.load(exposed.agent) });
  const tools = new Map(direct.map((t) => [t.name, t]));
  server.server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      ...[...agents.values()].map(({ exposed, definition }) => ({
        name: exposed.tool, title: `Ask ${definition.name}`,
        description: exposed.description ?? (definition.description || `Ask the OryxOS agent ${definition.name}.`),
        inputSchema: ASK_INPUT_JSON, outputSchema: ASK_OUTPUT_JSON,
        annotations: { readOnlyHint: false, destructiveHint: definition.tools.length > 0, idempotentHint: false, openWorldHint: true },
      })),
      ...direct.map((t) => ({
        name: t.name, ...(t.annotations?.title ? { title: t.annotations.title } : {}), description: t.description,
        inputSchema: t.inputSchema as { type: 'object' }, ...(t.annotations ? { annotations: t.annotations } : {}),
      })),
    ],
  }));
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    const agent = agents.get(name);
    const tool = tools.get(name);
    if (!agent && !tool) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
    via.busy?.(1);
    try {
      if (agent) {
        const parsed = askInput.safeParse(args);
        if (!parsed.success) return { isError: true, content: [{ type: 'text', text: `Invalid arguments for ${name}: ${z.prettifyError(parsed.error)}` }] };
        return await call(server, door, ctx, extra, { wants }, (channel, run) => ask(ctx, agent.exposed, parsed.data, run, channel), via.user);
      }
      return await call(server, door, ctx, extra, { wants, direct: true }, (_channel, run, client) => callTool(ctx, door, tool!, args, run, client), via.user);
    } finally { via.busy?.(-1); }
  });

  const resources = await registerResources(server, resourceSources(ctx, o));
  const subscribed = new Set<string>();
  if (o.sessions || o.memory || o.sources.length) {
    server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
    server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      if (!await resources.has(request.params.uri)) throw new McpError(ErrorCode.InvalidParams, `No resource ${request.params.uri}`);
      subscribed.add(request.params.uri);
      return {};
    });
    server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => { subscribed.delete(request.params.uri); return {}; });
    // A session's resource changes with every run on it: subscribers hear of it when one ends,
    // and the list (newest first, a new session in it) changes for everyone.
    const exposed = new Set(o.agents.map((a) => a.agent));
    const notSent = (error: unknown) => ctx.log.debug(`resource notification not sent: ${errorMessage(error)}`);
    const off = door.onSessionChange((sessionId, agent) => {
      if (!o.sessions || !exposed.has(agent)) return;
      const uri = `${SESSION_URI}${sessionId}`;
      if (subscribed.has(uri)) void server.server.sendResourceUpdated({ uri }).catch(notSent);
      void server.server.sendResourceListChanged().catch(notSent);
    });
    const closed = server.server.onclose;
    server.server.onclose = () => { off(); closed?.(); };
  }
  await registerPrompts(server, ctx, o.prompts, o.agents.map((a) => a.agent), resources);
  return server;
}

/** A zod object's JSON Schema as a tool listing carries it (no `$schema`: the spec's default dialect). */
function listed(schema: z.ZodObject, io: 'input' | 'output'): { type: 'object' } {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io }) as Record<string, unknown>;
  return json as { type: 'object' };
}

const askInput = z.object(inputSchema);
const ASK_INPUT_JSON = listed(askInput, 'input');
const ASK_OUTPUT_JSON = listed(z.object(outputSchema), 'output');

/** The exposed OryxOS tools, each of them one the tool agent may use. */
async function exposedTools(ctx: PluginContext, names: string[], agentName: string): Promise<Tool[]> {
  if (!names.length) return [];
  const agent = await ctx.agents.load(agentName);
  const allowed = new Map((await ctx.toolsFor(agent)).map((t) => [t.name, t]));
  const unknown = names.filter((n) => !allowed.has(n));
  if (unknown.length) {
    throw mcpServeError('ORYX_E_MCPSERVE_UNKNOWN_TOOL', `mcpServer(): tools lists ${unknown.map((n) => `"${n}"`).join(', ')}, which agent ${agentName} may not use (its tools: ${[...allowed.keys()].join(', ') || 'none'})`);
  }
  return names.map((n) => allowed.get(n)!);
}

/** Serves on this process's stdin and stdout until the client closes them. */
export async function serveStdio(door: McpDoor, ctx: PluginContext): Promise<Connection> {
  const server = await createServer(door, ctx);
  const transport = new StdioServerTransport();
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => { resolveClosed = resolve; });
  const previous = server.server.onclose;
  server.server.onclose = () => { previous?.(); resolveClosed(); };
  await server.connect(transport);
  // The client closing our stdin is how a desktop client ends the server.
  process.stdin.once('end', () => { void server.close(); });
  return { closed, close: () => server.close() };
}
