/**
 * The MCP side, on the official SDK's `McpServer`: one tool per exposed agent, each call a run
 * through the kernel's run service. Loaded when a transport is first served, never by the entry.
 */
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import * as z from 'zod';
import type { PluginContext, RunEvent } from '@oryxos/kernel';
import { errorMessage, toOryxError } from '@oryxos/provider-spec';
import { askClient } from './ask.ts';
import { CALL_ATTRIBUTE, DOOR, type Connection, type McpDoor } from './door.ts';
import { mcpServeError } from './errors.ts';
import type { ExposedAgent } from './options.ts';
import { toolResult } from './result.ts';

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

/**
 * An MCP server whose tools are the exposed agents. Throws ORYX_E_MCPSERVE_UNKNOWN_AGENT when an
 * exposed agent is not in the workspace.
 */
export async function createServer(door: McpDoor, ctx: PluginContext, via: { user?: string; busy?(delta: 1 | -1): void } = {}): Promise<McpServer> {
  const names = await ctx.agents.names();
  const missing = door.options.agents.filter((a) => !names.includes(a.agent));
  if (missing.length) {
    throw mcpServeError('ORYX_E_MCPSERVE_UNKNOWN_AGENT', `mcpServer(): no agent ${missing.map((a) => `"${a.agent}"`).join(', ')} in ${ctx.agents.agentsDir} (agents: ${names.join(', ') || 'none'})`);
  }
  const server = new McpServer({ name: door.options.serverName, version: door.version, title: 'OryxOS' }, {
    instructions: `Each tool hands a message to an OryxOS agent (${door.options.agents.map((a) => a.agent).join(', ')}), which may use its own tools before it answers. `
      + 'Pass the sessionId of a result as session to continue that conversation.',
  });
  for (const exposed of door.options.agents) {
    const agent = await ctx.agents.load(exposed.agent);
    server.registerTool(exposed.tool, {
      title: `Ask ${agent.name}`,
      description: exposed.description ?? (agent.description || `Ask the OryxOS agent ${agent.name}.`),
      inputSchema, outputSchema,
      annotations: { readOnlyHint: false, destructiveHint: agent.tools.length > 0, idempotentHint: false, openWorldHint: true },
    }, async (args, extra) => {
      via.busy?.(1);
      try { return await call(server, door, ctx, exposed, args, extra, via.user); } finally { via.busy?.(-1); }
    });
  }
  return server;
}

/** One tools/call: a run of the agent, its progress sent while it works. */
async function call(
  server: McpServer, door: McpDoor, ctx: PluginContext, exposed: ExposedAgent, args: { message: string; session?: string | undefined }, extra: Extra, user?: string,
): Promise<CallToolResult> {
  if (!door.accepting) return { isError: true, content: [{ type: 'text', text: 'The OryxOS MCP server is stopping; call again once it is back.' }] };
  const client = server.server.getClientVersion();
  const clientName = client?.name ?? 'unknown-client';
  const identity = `${clientName}@${client?.version ?? '?'}`;
  const key = randomUUID();
  const token = extra._meta?.progressToken;
  let step = 0;
  // Sent one after the other, and all of them before the result: the client drops progress that comes after it.
  let sent = Promise.resolve();
  const progress = (message: string) => {
    if (token === undefined) return;
    step += 1;
    const params = { progressToken: token, progress: step, message };
    sent = sent.then(() => extra.sendNotification({ method: 'notifications/progress', params }))
      .catch((error) => ctx.log.debug(`progress not sent: ${errorMessage(error)}`));
  };
  const controller = new AbortController();
  const onCancel = () => controller.abort(extra.signal.reason ?? 'cancelled by the MCP client');
  if (extra.signal.aborted) onCancel(); else extra.signal.addEventListener('abort', onCancel, { once: true });
  let settle!: () => void;
  const done = new Promise<void>((resolve) => { settle = resolve; });
  const release = door.track(key, {
    ask: (question, run) => askClient(server, extra, question, run, { by: `mcp:${identity}`, timeoutMs: door.options.askTimeoutMs, log: ctx.log }),
    progress,
    abort: (reason) => controller.abort(reason),
    done,
  });
  try {
    const result = await ctx.runs.process({
      agent: exposed.agent, message: args.message, ...(args.session ? { session: args.session } : { tags: ['mcp', `mcp-client:${identity}`] }),
      door: DOOR, user: user ?? clientName, signal: controller.signal, onEvent: (event) => { const m = describe(event); if (m) progress(m); },
      origin: {
        name: `MCP tools/call ${exposed.tool}`, startedAt: Date.now(),
        attributes: {
          'mcp.method.name': 'tools/call', 'gen_ai.tool.name': exposed.tool, 'mcp.client.name': clientName, 'mcp.client.version': client?.version ?? '',
          ...(extra.sessionId ? { 'mcp.session.id': extra.sessionId } : {}), [CALL_ATTRIBUTE]: key,
        },
      },
    });
    await sent;
    return toolResult(result, exposed, ctx.config.root);
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
