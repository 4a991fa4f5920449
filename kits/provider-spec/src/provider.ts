import type { AssistantMessage, Message, ToolCall } from './messages.ts';

export type JsonSchema = Record<string, unknown>;

/** What the model is told about a tool. */
export interface ToolSpec { name: string; description: string; inputSchema: JsonSchema }

/**
 * Tokens of one model call. `inputTokens` is every input token, cached ones included (what the
 * budget counts); `cacheReadTokens` and `cacheWriteTokens` are the parts of it the server read
 * from or wrote to its prompt cache. A server that reports no cache figures leaves them
 * undefined (stored as NULL), never 0: "none cached" and "not reported" differ.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache (OpenAI `prompt_tokens_details.cached_tokens`, Anthropic `cache_read_input_tokens`). */
  cacheReadTokens?: number;
  /** Input tokens written to the prompt cache (Anthropic `cache_creation_input_tokens`). */
  cacheWriteTokens?: number;
  /** Output tokens spent on reasoning, when the server says. */
  reasoningTokens?: number;
}

/**
 * Two usages summed; a cache or reasoning figure stays undefined until one of them reports it.
 *
 * @example
 * addUsage({ inputTokens: 10, outputTokens: 2 }, { inputTokens: 5, outputTokens: 1, cacheReadTokens: 4 });
 * // { inputTokens: 15, outputTokens: 3, cacheReadTokens: 4 }
 */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum = (x?: number, y?: number) => (x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0));
  const out: Usage = { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
  for (const key of ['cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens'] as const) {
    const v = sum(a[key], b[key]);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** What a model call asks for. */
export interface ChatRequest {
  model: string;
  messages: Message[];
  tools: ToolSpec[];
  /** Fires when the run is aborted or out of time: the provider closes the call. */
  signal?: AbortSignal;
  /** A cap on the answer's tokens, when the caller sets one. */
  maxOutputTokens?: number;
  /**
   * Headers the provider adds to its HTTP request (W3C `traceparent`/`tracestate` from a
   * tracing plugin). The provider sends them as they are and never logs them.
   */
  headers?: Record<string, string>;
}

/**
 * Why the model stopped, the same for every provider: `stop` (an answer), `tool_calls`,
 * `length` (cut at the token limit), `content_filter` (withheld or refused by the server),
 * `error` (the server says it failed mid-answer), `other` (anything else: see `rawFinishReason`).
 */
export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'error' | 'other';

export interface ChatResponse {
  message: AssistantMessage;
  usage: Usage;
  finishReason: FinishReason;
  /** The server's own word for it (`max_tokens`, `refusal`, `end_turn`, `done_reason: length`), when it sent one. */
  rawFinishReason?: string;
  model: string;
}

/** Events of a streamed model call: text and reasoning deltas, assembled tool calls, then the whole response. */
export type StreamEvent =
  | { type: 'text'; delta: string }
  | { type: 'reasoning'; delta: string }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'done'; response: ChatResponse };

/** How the kernel retries a failed model call (only errors marked `retryable`). */
export interface RetryPolicy {
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** First backoff; doubles each retry, with full jitter. Default 500 ms. */
  baseDelayMs?: number;
  /** Cap for one wait, `retry-after` included. Default 30 s. */
  maxDelayMs?: number;
}

/** What a model behind a provider accepts besides text. */
export interface ModelSupport {
  /** Image parts in user and tool messages. Without it the kernel sends a short text note in their place. */
  images: boolean;
}

/**
 * An LLM provider, registered under an explicit name that agents refer to. Failures are
 * thrown as `OryxError` with `retryable` set for rate limits, 5xx, timeouts and resets, so the
 * kernel can retry and audit each attempt.
 *
 * @example
 * const echo: Provider = {
 *   name: 'echo',
 *   async chat(request) {
 *     const last = request.messages.at(-1)!;
 *     return { message: { role: 'assistant', content: last.content }, usage: { inputTokens: 1, outputTokens: 1 }, finishReason: 'stop', model: request.model };
 *   },
 * };
 */
export interface Provider {
  name: string;
  defaultModel?: string;
  retry?: RetryPolicy;
  /** What `model` accepts; absent: text only. */
  supports?(model: string): ModelSupport;
  chat(request: ChatRequest): Promise<ChatResponse>;
  stream?(request: ChatRequest): AsyncIterable<StreamEvent>;
  /**
   * How `oryx doctor` checks this provider when a question cannot tell (a recording answers
   * only what it recorded): resolves with a one-line description of what is ready, or throws
   * an `OryxError` saying what is wrong. Absent: doctor asks the model for a one-word answer.
   *
   * @example
   * async check() { return 'cassette smoke.jsonl: 4 answer(s) for 2 prompt(s)'; }
   */
  check?(options: { model?: string; signal?: AbortSignal }): Promise<string>;
}
