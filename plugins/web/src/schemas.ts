import { Shape, shape as s, type Props, type ShapeIssue } from '@oryxos/schema-kit';
import { textProblem } from './text.ts';

/** Text of any length without a NUL or a lone surrogate (see text.ts; the problem names the position). */
class Text extends Shape<string> {
  readonly expected = 'a string';
  accepts(value: unknown): boolean { return typeof value === 'string'; }
  issue(value: unknown, path: (string | number)[]): ShapeIssue | undefined {
    if (typeof value !== 'string') return s.string().issue(value, path);
    const problem = textProblem(value);
    return problem ? { path, problem: `must be text without NUL characters or lone surrogates (was ${problem})` } : undefined;
  }
  protected schema(): Record<string, unknown> { return { type: 'string' }; }
}

/** A message to run: {@link Text}, not empty and not only whitespace (refused like an empty one, as on the CLI). */
class MessageText extends Shape<string> {
  readonly expected = 'a non-empty string';
  private readonly base = s.string({ min: 1 });
  private readonly text = new Text();
  accepts(value: unknown): boolean { return typeof value === 'string'; }
  issue(value: unknown, path: (string | number)[]): ShapeIssue | undefined {
    const found = this.base.issue(value, path) ?? this.text.issue(value, path);
    if (found) return found;
    if ((value as string).trim() === '') return { path, problem: 'must be text, not only whitespace (was only whitespace)' };
    return undefined;
  }
  protected schema(): Record<string, unknown> { return this.base.json(); }
}

/**
 * A query parameter holding a whole number from 1 to `max` (a page size): the query string's
 * text is checked here and handed to the route as a number (see `check` in body.ts).
 */
export class QueryInteger extends Shape<number> {
  readonly expected: string;
  constructor(readonly max: number) { super(); this.expected = `a whole number from 1 to ${max}`; }
  accepts(value: unknown): boolean { return typeof value === 'string'; }
  issue(value: unknown, path: (string | number)[]): ShapeIssue | undefined {
    const n = typeof value === 'string' && /^[0-9]{1,16}$/.test(value) ? Number(value) : NaN;
    return n >= 1 && n <= this.max ? undefined : { path, problem: `must be ${this.expected} (was ${typeof value === 'string' ? JSON.stringify(value) : 'missing'})` };
  }
  protected schema(): Record<string, unknown> { return { type: 'integer', minimum: 1, maximum: this.max }; }
}

/**
 * The body of `POST /api/sessions/:id/messages`, the route every run of the REST API takes.
 */
export const PostMessageBody = s.object({ message: new MessageText() });

/**
 * Every request and response shape of the REST API, as shapes (`@oryxos/schema-kit`): the same
 * objects validate requests (the error names the field) and generate `GET /openapi.json` through
 * `json()`, so the two never drift. Response shapes are for the document only. Objects take
 * keys they do not declare unless a request's shape says it refuses them (`closed`).
 */

/** Session ids the API accepts from clients (path, `user`, `x-session-id`). */
export const SESSION_ID = /^[A-Za-z0-9._:@+-]{1,128}$/;
/** User names the API accepts (the `/v1` `user` field, `x-oryx-user`, `?user=`): the same characters. */
export const USER_NAME = SESSION_ID;

/** An object that takes keys it does not declare (a response, an OpenAI request). */
export const open = <P extends Props>(props: P) => s.object(props, { unknownKeys: 'ignore' });
/** An object that refuses keys it does not declare, naming those it takes. */
export const closed = <P extends Props>(props: P) => s.object(props);
/** A query parameter: a whole number from 1 to `max`. */
export const limit = (max: number) => new QueryInteger(max);
/** `shape` or null. */
export const orNull = <T>(shape: Shape<T>) => s.union(shape, s.literal(null));

const str = s.string;
const num = s.number;
const bool = s.boolean;
/** A JSON object of any keys (the document says `object`). */
export const anyObject = s.record(s.unknown());
const strings = s.array(str());

const sessionId = str({ pattern: SESSION_ID });
const agentName = str({ pattern: /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/ });

export const CreateSessionBody = closed({ agent: agentName.optional(), title: str({ max: 200 }).optional() });

export const ListSessionsQuery = open({
  agent: str({ min: 1 }).optional(), limit: limit(100).optional(), cursor: str({ min: 1 }).optional(), q: str({ min: 1, max: 200 }).optional(),
});

export const SessionQuery = open({ limit: limit(100).optional() });

export const DeleteSessionQuery = open({ force: s.literal('true', 'false').optional() });

export const ToolsQuery = open({ agent: str({ min: 1 }).optional() });

export const MemoryQuery = open({ user: str({ pattern: USER_NAME }).optional() });

const contentPart = open({ type: str({ min: 1 }), text: new Text().optional() });

export const ChatMessage = open({
  role: s.literal('system', 'developer', 'user', 'assistant', 'tool', 'function'),
  content: s.union(new Text(), s.literal(null), s.array(contentPart)).optional(),
});

/** The OpenAI chat completion request, the fields OryxOS reads; others are accepted and ignored. */
export const ChatCompletionBody = open({
  model: str({ min: 1 }),
  messages: s.array(ChatMessage, { min: 1 }),
  stream: orNull(bool()).optional(),
  stream_options: orNull(open({ include_usage: orNull(bool()).optional() })).optional(),
  user: sessionId.optional(),
});

// ---- responses (documentation only) ------------------------------------------------------

export const ErrorResponse = open({
  error: open({ code: str(), message: str(), hint: str(), type: str().optional(), param: orNull(str()).optional() }),
});

const usage = open({
  inputTokens: num(), outputTokens: num(), cacheReadTokens: num().optional(), cacheWriteTokens: num().optional(), reasoningTokens: num().optional(),
});

const sessionProps = {
  id: str(), agent: str(), title: str(), createdAt: str(), updatedAt: str(), messageCount: num(), turns: num(), parentSessionId: str().optional(),
};
export const Session = open(sessionProps);

const toolCall = open({ id: str(), name: str(), args: anyObject, argsError: str().optional() });
const message = open({
  role: s.literal('system', 'user', 'assistant', 'tool'),
  content: str(),
  toolCalls: s.array(toolCall).optional(),
  toolCallId: str().optional(),
  name: str().optional(),
  isError: bool().optional(),
});

export const RunRecordSchema = open({
  runId: str(), sessionId: str(), agent: str(), parentRunId: str().optional(), startedAt: str(), finishedAt: str().optional(),
  stopReason: s.literal('final', 'limit', 'budget', 'loop', 'length', 'content_filter', 'aborted', 'error', 'suspended', 'running', 'crashed'),
  notice: str().optional(), iterations: num(), toolCalls: num(), inputTokens: num(), outputTokens: num(),
  cacheReadTokens: num().optional(), cacheWriteTokens: num().optional(), costUsd: num().optional(), retries: num(), durationMs: num(), errorCode: str().optional(),
  continuation: anyObject.optional(),
});

export const SessionWithMessages = open({
  ...sessionProps,
  children: s.array(Session),
  messages: s.array(open({ seq: num(), message, createdAt: str() })),
  runs: s.array(RunRecordSchema).optional(),
});

export const SessionPage = open({ items: s.array(Session), nextCursor: str().optional() });

const runResponseProps = {
  runId: str(),
  sessionId: str(),
  answer: str(),
  stopReason: s.literal('final', 'limit', 'budget', 'loop', 'length', 'content_filter', 'suspended'),
  notice: str().optional(),
  limit: open({ name: str(), value: num() }).optional(),
  iterations: num(),
  usage,
  budget: open({ tokens: num(), toolCalls: num(), retries: num(), ms: num() }),
  error: open({ code: str(), message: str(), hint: str().optional() }).optional(),
  suspended: s.array(open({ toolCallId: str(), tool: str(), by: str(), reason: str(), data: anyObject.optional() })).optional(),
  approval: open({ id: str(), tool: str(), summary: str(), expiresAt: str().optional() }).optional(),
};
export const RunResponse = open(runResponseProps);

export const Health = open({ status: s.literal('ok') });

export const Info = open({
  name: str(),
  version: str(),
  host: open({ name: str(), version: str(), packages: s.record(str()).optional() }).optional(),
  uptimeSeconds: num(),
  plugins: s.array(open({ name: str(), version: str() })),
  agents: strings,
  defaultAgent: str(),
  identity: open({ name: str(), namesUsers: bool() }),
});

export const AgentList = open({
  items: s.array(open({
    name: str(),
    description: str(),
    provider: str().optional(),
    model: str().optional(),
    tools: strings,
    skills: strings,
    agents: strings,
    settings: s.record(s.union(num(), bool(), str(), anyObject)).optional(),
    file: str(),
    error: open({ code: str(), message: str() }).optional(),
  })),
});

const dated = s.array(open({ date: str(), text: str() }));
export const MemoryResponse = open({
  agent: str(),
  scope: s.literal('agent', 'user', 'session').optional(),
  user: str().optional(),
  path: str(),
  core: dated,
  archive: dated,
});

export const ToolList = open({
  agent: str().optional(),
  items: s.array(open({
    name: str(), description: str(), source: s.literal('builtin', 'mcp', 'plugin'), plugin: str().optional(), inputSchema: anyObject,
  })),
  sources: s.array(open({ provider: str(), name: str(), ok: bool(), reason: str().optional(), tools: num() })),
});

export const ModelList = open({
  object: s.literal('list'),
  data: s.array(open({ id: str(), object: s.literal('model'), created: num(), owned_by: str() })),
});

export const ChatCompletion = open({
  id: str(),
  object: s.literal('chat.completion'),
  created: num(),
  model: str(),
  choices: s.array(open({
    index: num(),
    message: open({ role: s.literal('assistant'), content: str() }),
    finish_reason: s.literal('stop', 'length'),
  })),
  usage: open({ prompt_tokens: num(), completion_tokens: num(), total_tokens: num() }),
});
