import { Shape, shape as s, type ShapeIssue } from '@oryxos/schema-kit';
import { type } from 'arktype';
import { lazyType } from './lazy-type.ts';
import { textProblem } from './text.ts';

/**
 * A message to run: a string, not empty, without a NUL or a lone surrogate (see text.ts; the
 * problem names the position), not only whitespace (refused like an empty one, as on the CLI).
 */
class MessageText extends Shape<string> {
  readonly expected = 'a non-empty string';
  private readonly base = s.string({ min: 1 });
  accepts(value: unknown): boolean { return typeof value === 'string'; }
  issue(value: unknown, path: (string | number)[]): ShapeIssue | undefined {
    const found = this.base.issue(value, path);
    if (found) return found;
    const problem = textProblem(value as string);
    if (problem) return { path, problem: `must be text without NUL characters or lone surrogates (was ${problem})` };
    if ((value as string).trim() === '') return { path, problem: 'must be text, not only whitespace (was only whitespace)' };
    return undefined;
  }
  protected schema(): Record<string, unknown> { return this.base.json(); }
}

/**
 * The body of `POST /api/sessions/:id/messages`, the route every run of the REST API takes: a
 * shape rather than an arktype type, for its cost per request (a few hundred ns against ~9 µs).
 */
export const PostMessageBody = s.object({ message: new MessageText() });

/**
 * Every other request shape, as arktype types. The same objects validate requests (the error names
 * the field) and generate `GET /openapi.json` through `toJsonSchema()`, so the two never drift.
 * Response shapes are declared here too, for the document only. They are built on the first
 * request (or document), not at import: most `oryx` commands never serve one.
 */

/** Session ids the API accepts from clients (path, `user`, `x-session-id`). */
export const SESSION_ID = /^[A-Za-z0-9._:@+-]{1,128}$/;
/** User names the API accepts (the `/v1` `user` field, `x-oryx-user`, `?user=`): the same characters. */
export const USER_NAME = SESSION_ID;

/** A query integer from 1 to `max` (a page size). */
export const limit = (max: number) => type('string.integer.parse').pipe(type(`1 <= number.integer <= ${max}`));

/** Every type, built together on first use (see {@link lazyType}). */
function build() {
  const sessionId = type(SESSION_ID);
  const agentName = type(/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/);

  const CreateSessionBody = type({
    'agent?': agentName,
    'title?': 'string <= 200',
    '+': 'reject',
  });

  /** Message text: no NUL, no lone surrogate (see text.ts); the error names the position. */
  const messageText = type('string').narrow((text, ctx) => {
    const problem = textProblem(text);
    return problem === undefined || ctx.reject({ expected: 'text without NUL characters or lone surrogates', actual: problem });
  });


  const ListSessionsQuery = type({
    'agent?': 'string > 0',
    'limit?': limit(100),
    'cursor?': 'string > 0',
    'q?': '0 < string <= 200',
  });

  const SessionQuery = type({ 'limit?': limit(100) });

  const DeleteSessionQuery = type({ 'force?': "'true' | 'false'" });

  const ToolsQuery = type({ 'agent?': 'string > 0' });

  const MemoryQuery = type({ 'user?': type(USER_NAME) });

  const contentPart = type({ type: 'string > 0', 'text?': messageText, '+': 'ignore' });

  const ChatMessage = type({
    role: "'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function'",
    'content?': messageText.or('null').or(contentPart.array()),
    '+': 'ignore',
  });

  /** The OpenAI chat completion request, the fields OryxOS reads; others are accepted and ignored. */
  const ChatCompletionBody = type({
    model: 'string > 0',
    messages: ChatMessage.array().atLeastLength(1),
    'stream?': 'boolean | null',
    'stream_options?': type({ 'include_usage?': 'boolean | null', '+': 'ignore' }).or('null'),
    'user?': sessionId,
    '+': 'ignore',
  });

  // ---- responses (documentation only) ------------------------------------------------------

  const ErrorResponse = type({
    error: { code: 'string', message: 'string', hint: 'string', 'type?': 'string', 'param?': 'string | null' },
  });

  const usage = type({ inputTokens: 'number', outputTokens: 'number', 'cacheReadTokens?': 'number', 'cacheWriteTokens?': 'number', 'reasoningTokens?': 'number' });

  const Session = type({
    id: 'string', agent: 'string', title: 'string', createdAt: 'string', updatedAt: 'string', messageCount: 'number', turns: 'number',
    'parentSessionId?': 'string',
  });

  const toolCall = type({ id: 'string', name: 'string', args: 'Record<string, unknown>', 'argsError?': 'string' });
  const message = type({
    role: "'system' | 'user' | 'assistant' | 'tool'",
    content: 'string',
    'toolCalls?': toolCall.array(),
    'toolCallId?': 'string',
    'name?': 'string',
    'isError?': 'boolean',
  });

  const RunRecordSchema = type({
    runId: 'string', sessionId: 'string', agent: 'string', 'parentRunId?': 'string', startedAt: 'string', 'finishedAt?': 'string',
    stopReason: "'final' | 'limit' | 'budget' | 'loop' | 'length' | 'content_filter' | 'aborted' | 'error' | 'suspended' | 'running' | 'crashed'",
    'notice?': 'string', iterations: 'number', toolCalls: 'number', inputTokens: 'number', outputTokens: 'number',
    'cacheReadTokens?': 'number', 'cacheWriteTokens?': 'number', 'costUsd?': 'number', retries: 'number', durationMs: 'number', 'errorCode?': 'string',
    'continuation?': 'object',
  });

  const SessionWithMessages = Session.and({
    children: Session.array(),
    messages: type({ seq: 'number', message, createdAt: 'string' }).array(),
    'runs?': RunRecordSchema.array(),
  });

  const SessionPage = type({ items: Session.array(), 'nextCursor?': 'string' });

  const RunResponse = type({
    runId: 'string',
    sessionId: 'string',
    answer: 'string',
    stopReason: "'final' | 'limit' | 'budget' | 'loop' | 'length' | 'content_filter' | 'suspended'",
    'notice?': 'string',
    'limit?': { name: 'string', value: 'number' },
    iterations: 'number',
    usage,
    budget: { tokens: 'number', toolCalls: 'number', retries: 'number', ms: 'number' },
    'error?': { code: 'string', message: 'string', 'hint?': 'string' },
    'suspended?': type({ toolCallId: 'string', tool: 'string', by: 'string', reason: 'string', 'data?': 'object' }).array(),
    'approval?': { id: 'string', tool: 'string', summary: 'string', 'expiresAt?': 'string' },
  });

  const Health = type({ status: "'ok'" });

  const Info = type({
    name: 'string',
    version: 'string',
    'host?': { name: 'string', version: 'string', 'packages?': 'Record<string, string>' },
    uptimeSeconds: 'number',
    plugins: type({ name: 'string', version: 'string' }).array(),
    agents: 'string[]',
    defaultAgent: 'string',
    identity: { name: 'string', namesUsers: 'boolean' },
  });

  const AgentList = type({
    items: type({
      name: 'string',
      description: 'string',
      'provider?': 'string',
      'model?': 'string',
      tools: 'string[]',
      skills: 'string[]',
      agents: 'string[]',
      'settings?': 'Record<string, number | boolean | string | object>',
      file: 'string',
      'error?': { code: 'string', message: 'string' },
    }).array(),
  });

  const MemoryResponse = type({
    agent: 'string',
    'scope?': "'agent' | 'user' | 'session'",
    'user?': 'string',
    path: 'string',
    core: type({ date: 'string', text: 'string' }).array(),
    archive: type({ date: 'string', text: 'string' }).array(),
  });

  const ToolList = type({
    'agent?': 'string',
    items: type({
      name: 'string', description: 'string', source: "'builtin' | 'mcp' | 'plugin'", 'plugin?': 'string',
      inputSchema: 'Record<string, unknown>',
    }).array(),
    sources: type({ provider: 'string', name: 'string', ok: 'boolean', 'reason?': 'string', tools: 'number' }).array(),
  });

  const ModelList = type({
    object: "'list'",
    data: type({ id: 'string', object: "'model'", created: 'number', owned_by: 'string' }).array(),
  });

  const ChatCompletion = type({
    id: 'string',
    object: "'chat.completion'",
    created: 'number',
    model: 'string',
    choices: type({
      index: 'number',
      message: { role: "'assistant'", content: 'string' },
      finish_reason: "'stop' | 'length'",
    }).array(),
    usage: { prompt_tokens: 'number', completion_tokens: 'number', total_tokens: 'number' },
  });
  return { CreateSessionBody, ListSessionsQuery, SessionQuery, DeleteSessionQuery, ToolsQuery, MemoryQuery, ChatMessage, ChatCompletionBody, ErrorResponse, Session, RunRecordSchema, SessionWithMessages, SessionPage, RunResponse, Health, Info, AgentList, MemoryResponse, ToolList, ModelList, ChatCompletion };
}

let built: ReturnType<typeof build> | undefined;
const all = () => (built ??= build());

export const CreateSessionBody = lazyType(() => all().CreateSessionBody);
export const ListSessionsQuery = lazyType(() => all().ListSessionsQuery);
export const SessionQuery = lazyType(() => all().SessionQuery);
export const DeleteSessionQuery = lazyType(() => all().DeleteSessionQuery);
export const ToolsQuery = lazyType(() => all().ToolsQuery);
export const MemoryQuery = lazyType(() => all().MemoryQuery);
export const ChatMessage = lazyType(() => all().ChatMessage);
export const ChatCompletionBody = lazyType(() => all().ChatCompletionBody);
export const ErrorResponse = lazyType(() => all().ErrorResponse);
export const Session = lazyType(() => all().Session);
export const RunRecordSchema = lazyType(() => all().RunRecordSchema);
export const SessionWithMessages = lazyType(() => all().SessionWithMessages);
export const SessionPage = lazyType(() => all().SessionPage);
export const RunResponse = lazyType(() => all().RunResponse);
export const Health = lazyType(() => all().Health);
export const Info = lazyType(() => all().Info);
export const AgentList = lazyType(() => all().AgentList);
export const MemoryResponse = lazyType(() => all().MemoryResponse);
export const ToolList = lazyType(() => all().ToolList);
export const ModelList = lazyType(() => all().ModelList);
export const ChatCompletion = lazyType(() => all().ChatCompletion);
