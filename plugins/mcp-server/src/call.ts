/**
 * One tools/call as a run through the `mcp` door: tracked so the door reaches the client
 * (elicitation, progress), aborted when the client cancels, the run's events sent as progress
 * and log messages before the result. An `ask_<agent>` call runs the agent on the message; an
 * exposed tool's call is a run of the tool agent that makes only that call.
 */
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, LoggingLevel, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { PluginContext, RunEvent, RunInput, Tool } from '@oryxos/kernel';
import { errorMessage, toOryxError } from '@oryxos/provider-spec';
import { askClient } from './ask.ts';
import { CALL_ATTRIBUTE, DOOR, type McpDoor } from './door.ts';
import type { ExposedAgent } from './options.ts';
import { directResult, toolResult } from './result.ts';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Log levels, least severe first (RFC 5424 as MCP names them). */
export const LEVELS: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** What one call tells the client while it runs. */
export interface CallChannel { progress(message: string, update?: { progress?: number; total?: number }): void; log(level: LoggingLevel, message: string): void; sent(): Promise<void> }
/** What a call runs once its channel to the client is set up: the run, given the run's fields. */
export type Work = (channel: CallChannel, run: RunFields, client: string) => Promise<CallToolResult>;
export type RunFields = Pick<RunInput, 'door' | 'user' | 'signal' | 'onEvent' | 'origin' | 'tags'>;

/**
 * One tools/call: a run through the `mcp` door, tracked so the door can reach the client
 * (elicitation, progress), aborted when the client cancels, its events sent as progress and log
 * messages before the result.
 */
export async function call(server: McpServer, door: McpDoor, ctx: PluginContext, extra: Extra, how: { wants(level: LoggingLevel): boolean; direct?: boolean }, work: Work, user?: string): Promise<CallToolResult> {
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
export async function ask(ctx: PluginContext, exposed: ExposedAgent, args: { message: string; session?: string | undefined }, run: RunFields, channel: CallChannel): Promise<CallToolResult> {
  const { tags, ...fields } = run;
  const result = await ctx.runs.process({
    agent: exposed.agent, message: args.message, ...(args.session ? { session: args.session } : { tags }), ...fields,
    origin: { ...fields.origin, name: `MCP tools/call ${exposed.tool}`, attributes: { ...fields.origin?.attributes, 'gen_ai.tool.name': exposed.tool } },
  });
  await channel.sent();
  return toolResult(result, exposed, ctx.config.root);
}

/** A call of an exposed OryxOS tool: a run of the tool agent that makes only this call. */
export async function callTool(ctx: PluginContext, door: McpDoor, tool: Tool, args: Record<string, unknown>, run: RunFields, identity: string): Promise<CallToolResult> {
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
