/**
 * The MCP side, on the official SDK's `McpServer`: one tool per exposed agent, each call a run
 * through the kernel's run service. Loaded when a transport is first served, never by the entry.
 */
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, SetLevelRequestSchema, SubscribeRequestSchema, UnsubscribeRequestSchema,
  type CallToolResult, type LoggingLevel, type ServerNotification, type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import * as z from 'zod';
import type { AgentDefinition, PluginContext, RunEvent, RunInput, Tool } from '@oryxos/kernel';
import { errorMessage, toOryxError } from '@oryxos/provider-spec';
import { askClient } from './ask.ts';
import { CALL_ATTRIBUTE, DOOR, type Connection, type McpDoor } from './door.ts';
import { mcpServeError } from './errors.ts';
import type { ExposedAgent } from './options.ts';
import { registerPrompts } from './prompts.ts';
import { registerResources, resourceSources, SESSION_URI } from './resources.ts';
import { directResult, toolResult } from './result.ts';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

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

/** Log levels, least severe first (RFC 5424 as MCP names them). */
const LEVELS: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** What one call tells the client while it runs. */
interface CallChannel { progress(message: string, update?: { progress?: number; total?: number }): void; log(level: LoggingLevel, message: string): void; sent(): Promise<void> }

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
    // A session's resource changes with every run on it: subscribers hear of it when one ends.
    const off = door.onSessionChange((sessionId) => {
      const uri = `${SESSION_URI}${sessionId}`;
      if (subscribed.has(uri)) void server.server.sendResourceUpdated({ uri }).catch((error) => ctx.log.debug(`resource update not sent: ${errorMessage(error)}`));
    });
    const closed = server.server.onclose;
    server.server.onclose = () => { off(); closed?.(); };
  }
  await registerPrompts(server, ctx, o.prompts, o.agents.map((a) => a.agent), resources);
  return server;
}

const askInput = z.object(inputSchema);
const ASK_INPUT_JSON = { ...z.toJSONSchema(askInput, { io: 'input' }), $schema: undefined } as { type: 'object' };
const ASK_OUTPUT_JSON = { ...z.toJSONSchema(z.object(outputSchema), { io: 'output' }), $schema: undefined } as { type: 'object' };
delete (ASK_INPUT_JSON as Record<string, unknown>).$schema;
delete (ASK_OUTPUT_JSON as Record<string, unknown>).$schema;

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

/** What a call runs once its channel to the client is set up: the run, given the run's fields. */
type Work = (channel: CallChannel, run: RunFields, client: string) => Promise<CallToolResult>;
type RunFields = Pick<RunInput, 'door' | 'user' | 'signal' | 'onEvent' | 'origin' | 'tags'>;

/**
 * One tools/call: a run through the `mcp` door, tracked so the door can reach the client
 * (elicitation, progress), aborted when the client cancels, its events sent as progress and log
 * messages before the result.
 */
async function call(server: McpServer, door: McpDoor, ctx: PluginContext, extra: Extra, how: { wants(level: LoggingLevel): boolean; direct?: boolean }, work: Work, user?: string): Promise<CallToolResult> {
  if (!door.accepting) return { isError: true, content: [{ type: 'text', text: 'The OryxOS MCP server is stopping; call again once it is back.' }] };
  const client = server.server.getClientVersion();
  const clientName = client?.name ?? 'unknown-client';
  const identity = `${clientName}@${client?.version ?? '?'}`;
  const key = randomUUID();
  const token = extra._meta?.progressToken;
  let step = 0;
  // Sent one after the other, and all of them before the result: the client drops progress that comes after it.
  let sent = Promise.resolve();
  const send = (notification: ServerNotification) => {
    sent = sent.then(() => extra.sendNotification(notification)).catch((error) => ctx.log.debug(`notification not sent: ${errorMessage(error)}`));
  };
  const channel: CallChannel = {
    progress(message, update = {}) {
      if (token === undefined) return;
      // A tool's own figures when it gives them (never going back), else one step more.
      step = update.progress !== undefined && update.progress >= step ? update.progress : step + 1;
      send({ method: 'notifications/progress', params: { progressToken: token, progress: step, ...(update.total !== undefined ? { total: update.total } : {}), message } });
    },
    log(level, message) {
      if (how.wants(level)) send({ method: 'notifications/message', params: { level, logger: 'oryxos', data: message } });
    },
    sent: () => sent,
  };
  const controller = new AbortController();
  const onCancel = () => controller.abort(extra.signal.reason ?? 'cancelled by the MCP client');
  if (extra.signal.aborted) onCancel(); else extra.signal.addEventListener('abort', onCancel, { once: true });
  let settle!: () => void;
  const done = new Promise<void>((resolve) => { settle = resolve; });
  const release = door.track(key, {
    ask: (question, run) => askClient(server, extra, question, run, { by: `mcp:${identity}`, timeoutMs: door.options.askTimeoutMs, log: ctx.log }),
    progress: (message, update) => channel.progress(message, update),
    abort: (reason) => controller.abort(reason),
    done,
  });
  try {
    return await work(channel, {
      door: DOOR, user: user ?? clientName, signal: controller.signal, tags: ['mcp', `mcp-client:${identity}`],
      onEvent: (event) => {
        const m = describe(event);
        if (!m) return;
        channel.log(event.type === 'retry' || event.type === 'stopping' || (event.type === 'tool_result' && event.result.isError) ? 'warning' : 'info', m);
        // A direct tool's progress is the tool's own; an agent's is each step of its run.
        if (!how.direct) channel.progress(m);
        else if (event.type === 'tool_progress') channel.progress(event.message ?? m, { ...(event.progress !== undefined ? { progress: event.progress } : {}), ...(event.total !== undefined ? { total: event.total } : {}) });
      },
      origin: {
        startedAt: Date.now(),
        attributes: {
          'mcp.method.name': 'tools/call', 'mcp.client.name': clientName, 'mcp.client.version': client?.version ?? '',
          ...(extra.sessionId ? { 'mcp.session.id': extra.sessionId } : {}), [CALL_ATTRIBUTE]: key,
        },
      },
    }, identity);
  } catch (error) {
    // A refused run (no such session, a session waiting for approval) goes back as a tool error the model can read.
    const e = toOryxError(error, 'ORYX_E_RUN_FAILED');
    return { isError: true, content: [{ type: 'text', text: `${e.code}: ${e.message}${e.hint ? `\nhint: ${e.hint}` : ''}` }] };
  } finally {
    extra.signal.removeEventListener('abort', onCancel);
    release();
    settle();
  }
}

/** An ask_<agent> call: a run of the agent on the message. */
async function ask(ctx: PluginContext, exposed: ExposedAgent, args: { message: string; session?: string | undefined }, run: RunFields, channel: CallChannel): Promise<CallToolResult> {
  const { tags, ...fields } = run;
  const result = await ctx.runs.process({
    agent: exposed.agent, message: args.message, ...(args.session ? { session: args.session } : { tags }), ...fields,
    origin: { ...fields.origin, name: `MCP tools/call ${exposed.tool}`, attributes: { ...fields.origin?.attributes, 'gen_ai.tool.name': exposed.tool } },
  });
  await channel.sent();
  return toolResult(result, exposed, ctx.config.root);
}

/** A call of an exposed OryxOS tool: a run of the tool agent that makes only this call. */
async function callTool(ctx: PluginContext, door: McpDoor, tool: Tool, args: Record<string, unknown>, run: RunFields, identity: string): Promise<CallToolResult> {
  const { tags = [], ...fields } = run;
  const result = await ctx.runs.process({
    agent: door.options.toolAgent, message: `tools/call ${tool.name} from the MCP client ${identity}`, call: { name: tool.name, args },
    tags: [...tags, `mcp-tool:${tool.name}`], ...fields,
    origin: { ...fields.origin, name: `MCP tools/call ${tool.name}`, attributes: { ...fields.origin?.attributes, 'gen_ai.tool.name': tool.name } },
  });
  return directResult(result, tool.name, ctx.config.root);
}

/** What a person watching the call may want to see of a run event. */
function describe(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'iteration': return `thinking (model call ${event.iteration})`;
    case 'tool_call': return `calling ${event.call.name}`;
    case 'tool_progress': return `${event.call.name}: ${[event.message, event.progress !== undefined ? `${event.progress}${event.total !== undefined ? `/${event.total}` : ''}` : undefined].filter(Boolean).join(' ') || 'working'}`;
    case 'tool_result': return `${event.call.name} ${event.result.denied ? 'denied' : event.result.isError ? 'failed' : 'done'}`;
    case 'retry': return `the model call failed (${event.error.code}); retrying in ${event.delayMs} ms`;
    case 'stopping': return event.notice;
    case 'suspended': return `waiting: ${event.call.reason}`;
    default: return undefined;
  }
}

/** Serves on this process's stdin and stdout until the client closes them. */
export async function serveStdio(door: McpDoor, ctx: PluginContext): Promise<Connection> {
  const server = await createServer(door, ctx);
  const transport = new StdioServerTransport();
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => { resolveClosed = resolve; });
  server.server.onclose = () => resolveClosed();
  await server.connect(transport);
  // The client closing our stdin is how a desktop client ends the server.
  process.stdin.once('end', () => { void server.close(); });
  return { closed, close: () => server.close() };
}
