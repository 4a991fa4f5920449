import { OryxError, errorMessage } from '@oryxos/kernel';

/**
 * Every error code this package throws, with how to fix it. The README lists the same
 * codes; a test keeps the two in step. Retryable ones are retried by the kernel first.
 */
export const ERROR_CODES = {
  ORYX_E_OLLAMA_OPTIONS: 'Fix the option the message names in ollama({...}) in oryx.config.ts (or OLLAMA_HOST).',
  ORYX_E_LLM_AUTH: 'Ollama needs no key: a proxy in front of it refused the request (401/403); pass its credentials in headers.',
  ORYX_E_LLM_BAD_REQUEST: 'Ollama rejected the request (400): the message says why (often a model without tool support).',
  ORYX_E_LLM_NOT_FOUND: 'The model is not pulled (404): run `ollama pull <model>`, or fix the model name.',
  ORYX_E_LLM_RATE_LIMIT: 'Too many requests (429): retried after retry-after; raise maxRetries or OLLAMA_NUM_PARALLEL.',
  ORYX_E_LLM_SERVER: 'Ollama failed (5xx or an error in the stream): retried automatically; check `ollama serve` logs if it persists.',
  ORYX_E_LLM_TIMEOUT: 'No answer within timeoutMs (a model loading counts): retried automatically; raise timeoutMs.',
  ORYX_E_LLM_UNREACHABLE: 'Could not connect: start Ollama (`ollama serve`) or fix host / OLLAMA_HOST (the message names the URL).',
  ORYX_E_LLM_CONNECTION: 'The connection broke mid-response: retried automatically; check the Ollama logs if it persists.',
  ORYX_E_LLM_BAD_RESPONSE: 'The answer was not an Ollama chat response: check that host points to Ollama, not another server.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** What an error message names: the provider, the model, the URL. */
export interface CallContext { provider: string; model: string; url: string }

/** How the user fixes an unreachable URL and a timeout, for hints. */
export interface FixWhere { unreachable: string; timeout: string; timeoutMs: number }

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE']);
const BROKEN = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED']);

/** Error `code`s and messages along the `cause` chain (undici nests the socket error). */
export function causeChain(error: unknown): { codes: string[]; messages: string[] } {
  const codes: string[] = [];
  const messages: string[] = [];
  for (let e = error, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    messages.push(errorMessage(e));
  }
  return { codes, messages };
}

/** `retry-after-ms` (OpenAI) or `retry-after` (seconds or an HTTP date), in ms. */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers?.get('retry-after');
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** Classifies a connection-level failure (no HTTP status) as unreachable, broken or timed out. */
export function connectionError(error: unknown, ctx: CallContext, where: FixWhere): OryxError {
  const { codes, messages } = causeChain(error);
  const detail = messages.filter((m, i) => m && messages.indexOf(m) === i).slice(1).join(': ') || messages[0] || 'unknown error';
  const data = { status: undefined, provider: ctx.provider, model: ctx.model, url: ctx.url, errno: codes.at(-1) };
  if (codes.some((c) => BROKEN.has(c)) || /terminated|socket hang up|other side closed/i.test(messages.join(' '))) {
    return new OryxError('ORYX_E_LLM_CONNECTION', `${label(ctx)}: the connection to ${ctx.url} broke mid-response (${detail})`, {
      cause: error, retryable: true, data, hint: ERROR_CODES.ORYX_E_LLM_CONNECTION,
    });
  }
  if (codes.includes('UND_ERR_CONNECT_TIMEOUT') || /timed? ?out/i.test(messages.join(' '))) {
    return timeoutError(error, ctx, where);
  }
  const known = codes.some((c) => UNREACHABLE.has(c));
  return new OryxError('ORYX_E_LLM_UNREACHABLE', `${label(ctx)}: could not reach ${ctx.url} (${known ? codes.filter((c) => UNREACHABLE.has(c))[0] : detail})`, {
    cause: error, retryable: true, data,
    hint: where.unreachable,
  });
}

export function timeoutError(error: unknown, ctx: CallContext, where: FixWhere): OryxError {
  return new OryxError('ORYX_E_LLM_TIMEOUT', `${label(ctx)}: ${ctx.url} did not answer (or went silent mid-stream) for ${where.timeoutMs} ms`, {
    cause: error, retryable: true,
    data: { status: undefined, provider: ctx.provider, model: ctx.model, url: ctx.url },
    hint: `The model may be slow or overloaded: raise ${where.timeout}, or try again later.`,
  });
}

/** `provider "ollama" (model qwen2.5:7b)`: how messages name the call. */
export function label(ctx: CallContext): string {
  return `provider "${ctx.provider}" (model ${ctx.model})`;
}

/**
 * Turns an HTTP error status (and the server's message) into an OryxError: auth, bad request
 * and not found are final; 408/409/429/5xx are retryable. `x-should-retry` overrides.
 */
export function statusError(input: {
  status: number; message: string; code?: string | null; headers?: { get(name: string): string | null };
  ctx: CallContext; cause?: unknown; keyHint: string; modelHint: string;
}): OryxError {
  const { status, ctx } = input;
  const server = input.message.trim() || `HTTP ${status}`;
  const data = { status, provider: ctx.provider, model: ctx.model, url: ctx.url, ...(input.code ? { errorCode: input.code } : {}) };
  const make = (code: ErrorCode, what: string, retryable: boolean, hint: string) => {
    const override = input.headers?.get('x-should-retry');
    return new OryxError(code, `${label(ctx)}: ${what} (HTTP ${status}): ${server}`, {
      cause: input.cause, data, hint,
      retryable: override === 'true' ? true : override === 'false' ? false : retryable,
      retryAfterMs: retryAfterMs(input.headers),
    });
  };
  if (status === 401 || status === 403) {
    return make('ORYX_E_LLM_AUTH', status === 401 ? 'authentication failed' : 'permission denied', false, input.keyHint);
  }
  if (status === 404) return make('ORYX_E_LLM_NOT_FOUND', 'model or endpoint not found', false, input.modelHint);
  if (status === 408) return make('ORYX_E_LLM_TIMEOUT', 'the server timed out', true, ERROR_CODES.ORYX_E_LLM_TIMEOUT);
  if (status === 429) {
    if (input.code === 'insufficient_quota') {
      return make('ORYX_E_LLM_RATE_LIMIT', 'out of quota', false, 'The account has no quota left: check its plan and billing, or use another key.');
    }
    return make('ORYX_E_LLM_RATE_LIMIT', 'rate limited', true, ERROR_CODES.ORYX_E_LLM_RATE_LIMIT);
  }
  if (status >= 500 || status === 409) return make('ORYX_E_LLM_SERVER', 'server error', true, ERROR_CODES.ORYX_E_LLM_SERVER);
  const contextTooLong = input.code === 'context_length_exceeded' || /context length|maximum context|too many tokens/i.test(server);
  return make('ORYX_E_LLM_BAD_REQUEST', 'request rejected', false, contextTooLong
    ? 'The prompt is longer than the model allows: lower settings.context_tokens in AGENT.md, or use a model with a larger context.'
    : 'Read the server message above: usually the model name, a tool schema, or an option the server does not support.');
}

/** The kernel's abort error: the loop reports the run as aborted. */
export function abortError(error: unknown): OryxError {
  return new OryxError('ORYX_E_RUN_ABORTED', 'The run was aborted', { cause: error });
}
