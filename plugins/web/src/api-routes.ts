import { DEFAULT_SETTINGS, type AgentDefinition, type RunEvent, type RunResult } from '@oryxos/kernel';
import { OryxError, isOryxError, type Usage } from '@oryxos/provider-spec';
import type { MemoryZones, SessionStore } from '@oryxos/contracts';
import type { Context } from 'hono';
import { assertAgentExists } from './agent-check.ts';
import { byteLength } from './body.ts';
import type { WebContext } from './context.ts';
import { asOryxError, errorBody, statusOf, webError } from './errors.ts';
import type { RouteTable } from './routes.ts';
import { abortedError, runError } from './run-result.ts';
import { identityOf, memoryUserOf, principalOf } from './principal.ts';
import { requestIdOf } from './request-log.ts';
import {
  AgentList, CreateSessionBody, DeleteSessionQuery, ErrorResponse, Health, Info, ListSessionsQuery, MemoryQuery, MemoryResponse, PostMessageBody,
  RunResponse, Session, SessionPage, SessionQuery, SessionWithMessages, ToolList, ToolsQuery,
} from './schemas.ts';
import { SEARCH_SCAN_LIMIT, searchSessions } from './session-search.ts';
import { sseResponse, type SseChannel } from './sse.ts';
import { listAgents, listJson } from '@oryxos/command-kit';
import { clientSignalOf, headerOf } from './incoming.ts';
import { replyJson } from './reply.ts';
import type { WebEnv } from './request-log.ts';
import { originOf } from './origin.ts';

const err = (description: string) => ({ description, schema: ErrorResponse });
const HEALTHY = Object.freeze({ status: 'ok' });

/** The sqlite store's delete takes `force` (stop another process's run first); others ignore it. */
type SessionStoreWithForce = Omit<SessionStore, 'delete'> & { delete(id: string, options?: { force?: boolean }): Promise<boolean> };

/** The memory service's read with a user (the memory plugin's); the kernel's interface reads the agent's only. */
interface ScopedMemoryRead {
  read(agent: string, target?: { scope: 'user'; user: string }): Promise<MemoryZones & { scope?: string; user?: string }>;
}

/** The ten core endpoints: health, info, agents, memory, tools and sessions with runs. */
export function registerApiRoutes(routes: RouteTable, ctx: WebContext): void {
  const { kernel, runner, options } = ctx;
  const sessions = () => kernel.service('sessions');

  routes.add({
    method: 'get', path: '/health', tag: 'server', auth: false,
    summary: 'Liveness for load balancers; never needs the token. 503 while shutting down.',
    responses: { 200: { description: 'The server is up', schema: Health }, 503: err('Shutting down') },
  }, (c) => replyJson(c, HEALTHY));

  routes.add({
    method: 'get', path: '/api/info', tag: 'server',
    summary: 'Name, kernel version, uptime, the program serving (host: the oryx CLI and every package with its version), enabled plugins with versions, agents, and who the request acts as (identity).',
    responses: { 200: { description: 'Server information', schema: Info }, 401: err('Missing or wrong token') },
  }, async (c) => c.json({
    name: 'OryxOS',
    version: kernel.version,
    ...(kernel.host ? { host: kernel.host } : {}),
    uptimeSeconds: Math.round((Date.now() - ctx.startedAt) / 1000),
    plugins: kernel.plugins,
    agents: await kernel.agents.names(),
    defaultAgent: kernel.config.defaultAgent,
    identity: identityOf(c),
  }));

  routes.add({
    method: 'get', path: '/api/agents', tag: 'agents',
    summary: 'Every agent with its description, provider, model, tools, skills, settings and file; an agent whose AGENT.md is broken is listed with its error.',
    responses: { 200: { description: 'The agents', schema: AgentList }, 401: err('Missing or wrong token') },
  }, async (c) => {
    return c.json(listJson(await listAgents(kernel)));
  });

  routes.add({
    method: 'get', path: '/api/agents/:name/memory', tag: 'agents', query: MemoryQuery,
    summary: "The agent's long-term memory (MEMORY.md): the Core and Archive zones; with ?user=U, that user's memory of the agent.",
    description: 'A token that may name users may read any user\'s memory; any other token only its own user\'s (403 otherwise).',
    params: { name: 'Agent name' },
    responses: {
      200: { description: 'The memory zones', schema: MemoryResponse },
      400: err('Bad user name'), 401: err('Missing or wrong token'), 403: err("Another user's memory, for a token that may not name users"),
      404: err('Unknown agent (ORYX_E_AGENT_NOT_FOUND), or no memory plugin enabled (ORYX_E_WEB_NO_MEMORY)'),
    },
  }, async (c, { query }) => {
    const agent = await kernel.agents.load(c.req.param('name')!);
    if (!kernel.hasService('memory')) {
      throw webError('ORYX_E_WEB_NO_MEMORY', `No long-term memory is enabled, so agent "${agent.name}" has none to show`);
    }
    const memory = kernel.service('memory') as ScopedMemoryRead;
    if (query.user === undefined) return c.json({ agent: agent.name, ...await memory.read(agent.name) });
    const user = memoryUserOf(c, query.user);
    const zones = await memory.read(agent.name, { scope: 'user', user });
    // A memory service that knows no users would answer with the agent's memory: refuse instead.
    if (zones.scope !== 'user' || zones.user !== user) {
      throw webError('ORYX_E_WEB_NO_MEMORY', `The memory service of this server keeps no per-user memory, so user "${user}" has none to show`);
    }
    return c.json({ agent: agent.name, ...zones });
  });

  routes.add({
    method: 'get', path: '/api/tools', tag: 'agents', query: ToolsQuery,
    summary: 'Tools with their JSON Schema, source and plugin: those the agent may use with ?agent= (with the agent__ tools of its sub-agents), else every registered tool; plus the health of each tool source (MCP server).',
    responses: { 200: { description: 'The tools', schema: ToolList }, 401: err('Missing or wrong token'), 404: err('Unknown agent') },
  }, async (c, { query }) => {
    const agent = query.agent ? await kernel.agents.load(query.agent) : await discoveryAgent(ctx);
    const tools = query.agent ? await kernel.toolsFor(agent) : await kernel.allTools(agent);
    const items = tools.map((t) => ({ name: t.name, description: t.description, source: t.source, plugin: t.plugin, inputSchema: t.inputSchema }));
    return c.json(listJson(items, undefined, { ...(query.agent ? { agent: agent.name } : {}), sources: await kernel.toolSourceStatus() }));
  });

  routes.add({
    method: 'post', path: '/api/sessions', tag: 'sessions', body: CreateSessionBody,
    summary: 'Creates a session for an agent (without `agent`, the configured defaultAgent).',
    responses: {
      201: { description: 'The new session (also in the Location header)', schema: Session },
      400: err('Malformed JSON or a bad field'), 401: err('Missing or wrong token'), 404: err('Unknown agent'), 413: err('Body too large'),
    },
  }, async (c, { body }) => {
    const agent = await kernel.agents.load(body.agent ?? kernel.config.defaultAgent);
    const session = await sessions().create({ agent: agent.name, ...(body.title ? { title: body.title } : {}) });
    c.header('location', `/api/sessions/${encodeURIComponent(session.id)}`);
    return c.json(session, 201);
  });

  routes.add({
    method: 'get', path: '/api/sessions', tag: 'sessions', query: ListSessionsQuery,
    summary: 'Sessions, most recently updated first, paged: pass nextCursor back as cursor for the next page. '
      + 'With q, only those whose title contains it (case-insensitive).',
    description: `A search reads at most ${SEARCH_SCAN_LIMIT} sessions per request; a page may then hold fewer than limit `
      + 'matches (or none) and still carry a nextCursor to search on from.',
    responses: { 200: { description: 'One page of sessions', schema: SessionPage }, 400: err('Bad query parameter'), 401: err('Missing or wrong token') },
  }, async (c, { query }) => {
    try {
      const page = { agent: query.agent, limit: query.limit ?? 50, cursor: query.cursor };
      return c.json(query.q ? await searchSessions(sessions(), { ...page, q: query.q }) : await sessions().list(page));
    } catch (error) {
      // A cursor the store cannot read is the client's to fix, whatever store says so.
      if (query.cursor && isOryxError(error) && error.data?.field === 'cursor') {
        throw webError('ORYX_E_WEB_BAD_REQUEST', `query parameter cursor: ${error.message}`, {
          field: 'cursor', cause: error, hint: 'Pass the nextCursor of a previous page unchanged, or omit cursor to start from the newest session.',
        });
      }
      throw error;
    }
  });

  routes.add({
    method: 'get', path: '/api/sessions/:id', tag: 'sessions', query: SessionQuery,
    params: { id: 'Session id' },
    summary: 'A session with its last messages (limit, default and at most 100), oldest first, the sessions its sub-agents ran in '
      + '(`children`, newest first, at most 100; a sub-agent\'s session has `parentSessionId`), and how its runs ended '
      + '(`runs`, newest first, at most 100: stop reason, iterations, tool calls, tokens, retries, time, error code).',
    responses: {
      200: { description: 'The session', schema: SessionWithMessages },
      400: err('Bad query parameter'), 401: err('Missing or wrong token'), 404: err('Unknown session'),
    },
  }, async (c, { query }) => {
    const session = await mustGetSession(ctx, c.req.param('id')!);
    const messages = await sessions().messages(session.id, { limit: query.limit ?? 100 });
    const children = (await sessions().list({ parentSessionId: session.id, limit: 100 })).items;
    // How each run of the session ended, newest first, when the store keeps run records.
    const runs = kernel.hasService('runRecords') ? await kernel.service('runRecords').list({ sessionId: session.id, limit: 100 }) : undefined;
    return c.json({ ...session, children, messages, ...(runs ? { runs } : {}) });
  });

  routes.add({
    method: 'delete', path: '/api/sessions/:id', tag: 'sessions', query: DeleteSessionQuery,
    params: { id: 'Session id' },
    summary: 'Deletes a session and its messages; a run of it in this server is aborted first.',
    description: 'Runs of the session in this server (running or queued) are aborted and their clients answered 410 '
      + 'ORYX_E_WEB_SESSION_DELETED; then the session is deleted. While another process runs it the answer is 409 '
      + 'ORYX_E_SQLITE_SESSION_BUSY naming that process, unless force=true: that process is asked to abort its run, '
      + 'and the delete waits for it.',
    responses: {
      204: { description: 'Deleted' }, 400: err('Bad query parameter'), 401: err('Missing or wrong token'), 404: err('Unknown session'),
      409: err('Another process is running the session (without force=true)'),
    },
  }, async (c, { query }) => {
    const session = await mustGetSession(ctx, c.req.param('id')!);
    runner.abortSession(session.id);
    await kernel.runs.abortSession(session.id, 'session-deleted');
    await (sessions() as SessionStoreWithForce).delete(session.id, { force: query.force === 'true' });
    return c.body(null, 204);
  });

  routes.add({
    method: 'post', path: '/api/sessions/:id/messages', tag: 'sessions', body: PostMessageBody,
    params: { id: 'Session id' },
    headers: {
      accept: 'text/event-stream to stream the run as server-sent events',
      'x-oryx-user': 'The user the run acts for (its memory scope), when the token may name users (else refused with 403)',
    },
    summary: "Runs the session's agent on a message. With Accept: text/event-stream, streams the events "
      + '`token` {text, iteration}, `tool_call` {id, name, args}, `tool_result` {id, name, content, isError}, '
      + '`approval_required` {id, tool, summary, args, reasons} (a call waits for a person), '
      + '`usage` {inputTokens, outputTokens, cacheReadTokens?, calls} (the run\'s tokens so far, after each model call), '
      + 'then exactly one of `done` (the JSON answer below) or `error` {code, message, hint}.',
    description: 'Runs on one session are served one after the other. A run past invokeTimeoutMs is aborted (504); '
      + 'a client that disconnects aborts its run. Either way the session keeps every message committed before that.',
    responses: {
      200: { description: 'The answer (or, with Accept: text/event-stream, the event stream)', schema: RunResponse },
      202: {
        description: 'A tool call waits for a person\'s approval: stopReason `suspended`, `suspended` [the calls waited at], and `approval` {id, tool, summary}; '
          + 'POST /api/approvals/:id decides it and the run goes on', schema: RunResponse,
      },
      400: err('Malformed JSON or a bad field'), 401: err('Missing or wrong token'), 403: err('x-oryx-user names a user this token may not act for'),
      404: err('Unknown session, or its agent is gone'),
      409: err('The session belongs to another agent, or waits for an approval (ORYX_E_APPROVAL_WAITING, naming it)'),
      413: err('Message over maxMessageBytes'), 502: err('The model call failed'), 503: err('Shutting down'), 504: err('Run took longer than invokeTimeoutMs'),
    },
  }, async (c, { body }) => {
    if (byteLength(body.message) > options.maxMessageBytes) {
      throw webError('ORYX_E_WEB_TOO_LARGE', `The message is ${byteLength(body.message)} bytes; the limit is ${options.maxMessageBytes} bytes`, { field: 'message' });
    }
    const session = await mustGetSession(ctx, c.req.param('id')!);
    const user = principalOf(c);
    if (!(headerOf(c, 'accept') ?? '').includes('text/event-stream')) {
      // An agent that is gone fails the run before it starts, with the same 404 the check below gives.
      const outcome = await runner.invoke({
        agent: session.agent, session: session.id, message: body.message, user, stream: false, clientSignal: clientSignalOf(c), origin: originOf(c),
      });
      if (outcome.aborted) throw abortedError(outcome.aborted, options.invokeTimeoutMs);
      return runJson(c, outcome.result!);
    }
    await assertAgentExists(kernel, session.agent);
    return sseResponse(c, async (channel) => {
      const outcome = await runner.invoke({
        agent: session.agent, session: session.id, message: body.message, user, stream: true, clientSignal: channel.clientSignal, onEvent: sseEvents(channel), onUsage: sseUsage(channel), origin: originOf(c),
      });
      if (outcome.aborted) {
        if (outcome.aborted !== 'disconnect') channel.send('error', errorBody(abortedError(outcome.aborted, options.invokeTimeoutMs)).error);
        kernel.log.info(`${requestIdOf(c)} run aborted (${outcome.aborted})`);
        return;
      }
      const result = outcome.result!;
      if (result.stopReason === 'error') channel.send('error', errorBody(runError(result)).error);
      else channel.send('done', answerOf(result));
    }, {
      onError(error, channel) {
        const e = asOryxError(error);
        kernel.log.warn(`${requestIdOf(c)} stream failed: ${e.code} ${e.message}`);
        channel.send('error', errorBody(e).error);
      },
    });
  });
}

/** The RunEvent → SSE mapping of the core API (and of a resumed run, POST /api/approvals/:id). */
export function sseEvents(channel: SseChannel): (event: RunEvent) => void {
  let iteration = 0;
  return (e) => {
    if (e.type === 'iteration') iteration = e.iteration;
    else if (e.type === 'token') channel.send('token', { text: e.text, iteration });
    else if (e.type === 'tool_call') channel.send('tool_call', { id: e.call.id, name: e.call.name, args: e.call.args });
    else if (e.type === 'stopping') channel.send('stopping', { reason: e.reason, notice: e.notice });
    else if (e.type === 'suspended' && typeof e.call.data?.approvalId === 'string') {
      channel.send('approval_required', { id: e.call.data.approvalId, tool: e.call.tool, summary: e.call.reason, args: e.args, reasons: [e.call.reason] });
    }
    else if (e.type === 'tool_result') {
      channel.send('tool_result', {
        id: e.call.id, name: e.call.name, content: e.result.content, isError: e.result.isError, ...(e.result.denied ? { denied: e.result.denied } : {}),
      });
    }
  };
}

/**
 * The `usage` event: after each model call, the tokens the run has used so far (in, out, and
 * cached when the provider reports it), and how many model calls that took.
 */
export function sseUsage(channel: SseChannel): (usage: Usage) => void {
  const total = { inputTokens: 0, outputTokens: 0, calls: 0 } as { inputTokens: number; outputTokens: number; cacheReadTokens?: number; calls: number };
  return (u) => {
    total.inputTokens += u.inputTokens;
    total.outputTokens += u.outputTokens;
    if (u.cacheReadTokens !== undefined) total.cacheReadTokens = (total.cacheReadTokens ?? 0) + u.cacheReadTokens;
    total.calls += 1;
    channel.send('usage', { ...total });
  };
}

/** A run's result as the API answers it. */
export function answerOf(r: RunResult) {
  // `error` on a run that still answered: the details of a stop other than `final` (code, message, hint).
  // Keys of fields a run does not have are undefined, which JSON leaves out (no spread per field).
  return {
    runId: r.runId, sessionId: r.sessionId, answer: r.answer, stopReason: r.stopReason, notice: r.notice || undefined,
    limit: r.limit || undefined, iterations: r.iterations, usage: r.usage, budget: r.budget, error: r.error || undefined,
    suspended: r.suspended || undefined, approval: approvalOf(r),
  };
}

/** The approval a suspended run waits for (the approvals plugin's), as the API has always answered it. */
function approvalOf(r: RunResult): { id: string; tool: string; summary: string } | undefined {
  const call = r.suspended?.find((c) => typeof c.data?.approvalId === 'string');
  return call ? { id: String(call.data!.approvalId), tool: call.tool, summary: call.reason } : undefined;
}

/** 202 while a tool call waits for a person: the run is not done, it goes on once the approval is decided. */
function runJson(c: Context<WebEnv>, result: RunResult): Response {
  if (result.stopReason === 'error') {
    const e = runError(result);
    return replyJson(c, errorBody(e), statusOf(e));
  }
  return replyJson(c, answerOf(result), result.stopReason === 'suspended' ? 202 : 200);
}

export async function mustGetSession(ctx: WebContext, id: string) {
  const session = await ctx.kernel.service('sessions').get(id);
  if (!session) {
    throw new OryxError('ORYX_E_SESSION_NOT_FOUND', `No session "${id}"`, {
      hint: 'List sessions with GET /api/sessions, or create one with POST /api/sessions.',
    });
  }
  return session;
}

/**
 * The agent whose context tool providers (MCP) see when every tool is listed: the default
 * agent, or a bare stand-in when it does not exist.
 */
async function discoveryAgent(ctx: WebContext): Promise<AgentDefinition> {
  const name = ctx.kernel.config.defaultAgent;
  try {
    return await ctx.kernel.agents.load(name);
  } catch {
    return {
      name, description: '', tools: ['*'], skills: [], settings: { ...DEFAULT_SETTINGS }, instructions: '', bootstrap: [],
      dir: ctx.kernel.config.workspaceDir, file: '', extra: {},
    };
  }
}
