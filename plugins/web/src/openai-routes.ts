import { randomUUID } from 'node:crypto';
import type { Message } from '@oryxos/provider-spec';
import type { Infer } from '@oryxos/schema-kit';
import type { RunResult } from '@oryxos/kernel';
import { assertAgentExists } from './agent-check.ts';
import { byteLength } from './body.ts';
import type { WebContext } from './context.ts';
import { asOryxError, errorBody, statusOf, webError } from './errors.ts';
import { principalOf } from './principal.ts';
import { requestIdOf } from './request-log.ts';
import type { RouteTable } from './routes.ts';
import { abortedError, runError } from './run-result.ts';
import { ChatCompletion, ChatCompletionBody, ErrorResponse, ModelList, SESSION_ID } from './schemas.ts';
import { sseResponse } from './sse.ts';
import { clientSignalOf, headerOf } from './incoming.ts';
import { replyJson } from './reply.ts';
import { originOf } from './origin.ts';

type ChatBody = Infer<typeof ChatCompletionBody>;
type ChatMessage = ChatBody['messages'][number];

const err = (description: string) => ({ description, schema: ErrorResponse });

/**
 * The OpenAI-compatible face: `model` names an agent; the session is the `x-session-id`
 * header, else the `user` field, else a new session per request.
 */
export function registerOpenAiRoutes(routes: RouteTable, ctx: WebContext): void {
  const { kernel, runner, options } = ctx;
  const created = Math.floor(ctx.startedAt / 1000);

  routes.add({
    method: 'get', path: '/v1/models', tag: 'openai',
    summary: 'The agents, as OpenAI models (id = agent name).',
    responses: { 200: { description: 'The model list', schema: ModelList }, 401: err('Missing or wrong token') },
  }, async (c) => c.json({
    object: 'list',
    data: (await kernel.agents.names()).map((id) => ({ id, object: 'model', created, owned_by: 'oryxos' })),
  }));

  routes.add({
    method: 'post', path: '/v1/chat/completions', tag: 'openai', body: ChatCompletionBody, bodyLimit: options.maxChatBodyBytes,
    headers: {
      'x-session-id': 'The session to continue (wins over `user`); created with this id when new. Echoed in the response.',
      'x-oryx-user': 'The user the run acts for, when the token may name users (else refused with 403); the `user` field does the same.',
    },
    summary: 'OpenAI chat completions: runs the agent named by `model` on the last message, which must be a user message; `stream: true` answers with chat.completion.chunk events ending in `data: [DONE]`.',
    description: 'The session is the x-session-id header, else `user`, else a new one per request (its id is returned in x-session-id). '
      + 'A session that already exists uses its stored history and ignores the earlier messages of the request; a new one is '
      + 'seeded with the earlier user and assistant messages. Agents run their own tools, so the answer has no tool_calls; '
      + 'a stream carries the text of every step, the non-streamed answer the final step only.',
    responses: {
      200: { description: 'The completion (or, with stream: true, the chunk stream)', schema: ChatCompletion },
      400: err('Malformed JSON, a bad field, or a last message that is not a user message'), 401: err('Missing or wrong token'),
      403: err('x-oryx-user names a user this token may not act for'),
      404: err('No agent named by model'), 409: err('The session belongs to another agent'), 413: err('Body over maxChatBodyBytes, or last message over maxMessageBytes'),
      502: err('The model call failed'), 503: err('Shutting down'), 504: err('Run took longer than invokeTimeoutMs'),
    },
  }, async (c, { body }) => {
    await assertAgentExists(kernel, body.model, 'model');
    const agent = { name: body.model };
    const lastIndex = body.messages.length - 1;
    const last = body.messages[lastIndex]!;
    if (last.role !== 'user') {
      throw webError('ORYX_E_WEB_BAD_REQUEST', `messages.${lastIndex}.role must be "user" (was "${last.role}"): the last message is the one the agent answers`, { field: `messages.${lastIndex}.role` });
    }
    const user = principalOf(c, body.user);
    const message = textOf(last, lastIndex);
    if (!message.trim()) throw webError('ORYX_E_WEB_BAD_REQUEST', `messages.${lastIndex}.content must be non-empty text`, { field: `messages.${lastIndex}.content` });
    if (byteLength(message) > options.maxMessageBytes) {
      throw webError('ORYX_E_WEB_TOO_LARGE', `The last message is ${byteLength(message)} bytes; the limit is ${options.maxMessageBytes} bytes`, { field: `messages.${lastIndex}.content` });
    }
    const header = headerOf(c, 'x-session-id');
    if (header !== undefined && !SESSION_ID.test(header)) {
      throw webError('ORYX_E_WEB_BAD_REQUEST', 'The x-session-id header must be 1 to 128 letters, digits or ._:@+-', { field: 'x-session-id' });
    }
    const earlier = () => body.messages.slice(0, lastIndex).flatMap((m, i) => seedOf(m, i));
    const wanted = header ?? body.user;
    let sessionId: string;
    if (wanted) {
      sessionId = (await runner.openOrCreate(wanted, agent.name, earlier)).session.id;
    } else {
      const seed = earlier();
      const session = await kernel.service('sessions').create({ agent: agent.name });
      if (seed.length) await kernel.service('sessions').append(session.id, seed);
      sessionId = session.id;
    }
    c.header('x-session-id', sessionId);
    const id = `chatcmpl-${randomUUID()}`;
    const now = Math.floor(Date.now() / 1000);
    const run = { agent: agent.name, session: sessionId, message, user, origin: originOf(c) };

    if (!body.stream) {
      const outcome = await runner.invoke({ ...run, stream: false, clientSignal: clientSignalOf(c) });
      if (outcome.aborted) throw abortedError(outcome.aborted, options.invokeTimeoutMs);
      const result = outcome.result!;
      if (result.stopReason === 'error') throw runError(result);
      return replyJson(c, {
        id, object: 'chat.completion', created: now, model: agent.name,
        choices: [{ index: 0, message: { role: 'assistant', content: result.answer }, finish_reason: finishReason(result) }],
        usage: usageOf(result),
      }, 200, { 'x-session-id': sessionId });
    }

    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      id, object: 'chat.completion.chunk', created: now, model: agent.name, choices: [{ index: 0, delta, finish_reason: finish }],
    });
    return sseResponse(c, async (channel) => {
      channel.send(undefined, chunk({ role: 'assistant', content: '' }));
      let iteration = 0;
      let textIteration = 0;
      const outcome = await runner.invoke({
        ...run, stream: true, clientSignal: channel.clientSignal,
        onEvent(e) {
          if (e.type === 'iteration') iteration = e.iteration;
          if (e.type !== 'token' || !e.text) return;
          // Text of an earlier step (before its tool calls) and of the next one would run together.
          const sep = textIteration && textIteration !== iteration ? '\n\n' : '';
          textIteration = iteration;
          channel.send(undefined, chunk({ content: sep + e.text }));
        },
      });
      if (outcome.aborted) {
        if (outcome.aborted !== 'disconnect') channel.send(undefined, errorBody(abortedError(outcome.aborted, options.invokeTimeoutMs), { openai: true }));
        else kernel.log.info(`${requestIdOf(c)} run aborted (disconnect)`);
      } else if (outcome.result!.stopReason === 'error') {
        channel.send(undefined, errorBody(runError(outcome.result!), { openai: true }));
      } else {
        channel.send(undefined, chunk({}, finishReason(outcome.result!)));
        if (body.stream_options?.include_usage) {
          channel.send(undefined, { id, object: 'chat.completion.chunk', created: now, model: agent.name, choices: [], usage: usageOf(outcome.result!) });
        }
      }
      channel.send(undefined, '[DONE]');
    }, {
      headers: { 'x-session-id': sessionId },
      onError(error, channel) {
        const e = asOryxError(error);
        kernel.log.warn(`${requestIdOf(c)} stream failed: ${e.code} ${e.message} (status ${statusOf(e)})`);
        channel.send(undefined, errorBody(e, { openai: true }));
        channel.send(undefined, '[DONE]');
      },
    });
  });
}

function finishReason(r: RunResult): 'stop' | 'length' {
  return r.stopReason === 'final' ? 'stop' : 'length';
}

function usageOf(r: RunResult) {
  return { prompt_tokens: r.usage.inputTokens, completion_tokens: r.usage.outputTokens, total_tokens: r.usage.inputTokens + r.usage.outputTokens };
}

/** The text of a message: a string, or the `text` parts of a content array (other parts are refused). */
function textOf(m: ChatMessage, index: number): string {
  if (m.content === undefined || m.content === null) return '';
  if (typeof m.content === 'string') return m.content;
  return m.content.map((part, j) => {
    if (part.type !== 'text' || typeof part.text !== 'string') {
      throw webError('ORYX_E_WEB_BAD_REQUEST', `messages.${index}.content.${j}: only text parts are supported (was "${part.type}")`, { field: `messages.${index}.content.${j}.type` });
    }
    return part.text;
  }).join('');
}

/** Earlier user and assistant text seeds a new session; system, tool and empty messages are left out. */
function seedOf(m: ChatMessage, index: number): Message[] {
  if (m.role !== 'user' && m.role !== 'assistant') return [];
  const content = textOf(m, index);
  return content ? [{ role: m.role, content }] : [];
}
