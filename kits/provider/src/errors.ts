import { OryxError, errorMessage } from '@oryxos/provider-spec';
import { redactUrl, redactUrls } from './url.ts';

/** The kernel's codes for a failed model call, shared by every provider plugin. */
export type LlmErrorCode = 'ORYX_E_LLM_AUTH' | 'ORYX_E_LLM_BAD_REQUEST' | 'ORYX_E_LLM_NOT_FOUND' | 'ORYX_E_LLM_RATE_LIMIT'
  | 'ORYX_E_LLM_SERVER' | 'ORYX_E_LLM_TIMEOUT' | 'ORYX_E_LLM_UNREACHABLE' | 'ORYX_E_LLM_CONNECTION' | 'ORYX_E_LLM_BAD_RESPONSE';

/** What an error message names: the provider, the model, the URL (its credentials are shown as `***`). */
export interface ProviderCall { provider: string; model: string; url: string }

/**
 * How the user fixes one provider's failures: where the URL and the timeout are set, and the
 * provider's own hints by code (the kernel's generic "how to fix" fills in the rest).
 */
export interface ProviderFix {
  /** The hint for an unreachable URL, naming the option or variable that sets it. */
  unreachable: string;
  /** The option that raises the timeout, e.g. "timeoutMs in openai({ timeoutMs })". */
  timeout: string;
  timeoutMs: number;
  hints?: Partial<Record<LlmErrorCode, string>>;
}

type Headers = { get(name: string): string | null };

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE']);
const BROKEN = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED']);


/**
 * The codes of a failed model call with how to fix each: the contract every provider keeps
 * (`test/error-codes.test.ts` checks them against this package's README).
 */
export const LLM_ERROR_CODES: Record<LlmErrorCode, string> = {
  ORYX_E_LLM_AUTH: 'The provider refused the credentials (401/403): check the API key (or proxy headers) and that it may use this model.',
  ORYX_E_LLM_BAD_REQUEST: 'The provider rejected the request (400/422): the message says why (model name, tool schema, context length).',
  ORYX_E_LLM_NOT_FOUND: 'The model or endpoint does not exist (404): check the model name and the provider URL.',
  ORYX_E_LLM_RATE_LIMIT: 'Rate limited (429): retried after retry-after; raise maxRetries or lower the request rate. Out of quota is final: check billing.',
  ORYX_E_LLM_SERVER: 'The provider failed (5xx or an error in the stream): retried automatically; if it persists, the service is down.',
  ORYX_E_LLM_TIMEOUT: 'No answer within the timeoutMs of the provider: retried automatically; raise timeoutMs for slow models.',
  ORYX_E_LLM_UNREACHABLE: 'Could not connect: start the server or fix the provider URL (the message names it).',
  ORYX_E_LLM_CONNECTION: 'The connection broke mid-response: retried automatically; check proxies or the server logs if it persists.',
  ORYX_E_LLM_BAD_RESPONSE: 'The answer did not have the shape the provider API returns: check that the provider URL points to the right kind of server.',
};

const hintOf = (code: LlmErrorCode, hints?: Partial<Record<LlmErrorCode, string>>) => hints?.[code] ?? LLM_ERROR_CODES[code];

/** Error `code`s and messages along the `cause` chain (undici nests the socket error), URL credentials shown as `***`. */
export function causeChain(error: unknown): { codes: string[]; messages: string[] } {
  const codes: string[] = [];
  const messages: string[] = [];
  for (let e = error, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    messages.push(redactUrls(errorMessage(e)));
  }
  return { codes, messages };
}

/**
 * The server-requested wait in ms: `retry-after-ms` (OpenAI), else `retry-after` in seconds
 * or as an HTTP date.
 *
 * @example
 * retryAfterMs(response.headers) // 'retry-after: 2' → 2000
 */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers?.get('retry-after');
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** How messages name the call: `provider "openai" (model gpt-4o-mini)`. */
export function providerLabel(ctx: ProviderCall): string { return `provider "${ctx.provider}" (model ${ctx.model})`; }

/** The run was aborted while the model answered: the loop reports the run as aborted. */
export function providerAbortError(error: unknown): OryxError { return new OryxError('ORYX_E_RUN_ABORTED', 'The run was aborted', { cause: error }); }

/** No answer (or a silent stream) within `fix.timeoutMs`: retryable `ORYX_E_LLM_TIMEOUT`. */
export function providerTimeoutError(error: unknown, ctx: ProviderCall, fix: ProviderFix): OryxError {
  return new OryxError('ORYX_E_LLM_TIMEOUT', `${providerLabel(ctx)}: ${redactUrl(ctx.url)} did not answer (or went silent mid-stream) for ${fix.timeoutMs} ms`, {
    cause: error, retryable: true,
    data: { status: undefined, provider: ctx.provider, model: ctx.model, url: redactUrl(ctx.url) },
    hint: `The model may be slow or overloaded: raise ${fix.timeout}, or try again later.`,
  });
}

/**
 * The server answered, but not with a chat answer the provider can read (bad JSON, no
 * message, no choices): final `ORYX_E_LLM_BAD_RESPONSE`; `what` says what was wrong.
 *
 * @example
 * if (!body.message) throw providerBadResponseError(`the answer from ${ctx.url} has no message`, ctx, fix);
 */
export function providerBadResponseError(what: string, ctx: ProviderCall, fix: ProviderFix, cause?: unknown): OryxError {
  return new OryxError('ORYX_E_LLM_BAD_RESPONSE', `${providerLabel(ctx)}: ${what}`, {
    cause, hint: hintOf('ORYX_E_LLM_BAD_RESPONSE', fix.hints), data: { status: undefined, provider: ctx.provider, model: ctx.model, url: redactUrl(ctx.url) },
  });
}

/**
 * Classifies a failure with no HTTP status by the error codes along its `cause` chain: a broken
 * connection, a connect timeout, or an unreachable URL. All three are retryable.
 *
 * @example
 * const fix = { unreachable: 'Start the server or fix baseURL.', timeout: 'timeoutMs in my({ timeoutMs })', timeoutMs: 60_000 };
 * throw providerConnectionError(error, { provider: 'my', model, url }, fix); // ECONNREFUSED → ORYX_E_LLM_UNREACHABLE
 */
export function providerConnectionError(error: unknown, ctx: ProviderCall, fix: ProviderFix): OryxError {
  const { codes, messages } = causeChain(error);
  const detail = messages.filter((m, i) => m && messages.indexOf(m) === i).slice(1).join(': ') || messages[0] || 'unknown error';
  const data = { status: undefined, provider: ctx.provider, model: ctx.model, url: redactUrl(ctx.url), errno: codes.at(-1) };
  if (codes.some((c) => BROKEN.has(c)) || /terminated|socket hang up|other side closed/i.test(messages.join(' '))) {
    return new OryxError('ORYX_E_LLM_CONNECTION', `${providerLabel(ctx)}: the connection to ${redactUrl(ctx.url)} broke mid-response (${detail})`, {
      cause: error, retryable: true, data, hint: hintOf('ORYX_E_LLM_CONNECTION', fix.hints),
    });
  }
  if (codes.includes('UND_ERR_CONNECT_TIMEOUT') || /timed? ?out/i.test(messages.join(' '))) return providerTimeoutError(error, ctx, fix);
  const known = codes.find((c) => UNREACHABLE.has(c));
  return new OryxError('ORYX_E_LLM_UNREACHABLE', `${providerLabel(ctx)}: could not reach ${redactUrl(ctx.url)} (${known ?? detail})`, {
    cause: error, retryable: true, data, hint: fix.unreachable,
  });
}

/**
 * Turns an HTTP error status (and the server's message) into an OryxError: auth, bad request
 * and not found are final; 408/409/429/5xx are retryable; `x-should-retry` overrides, and
 * `retry-after` becomes `retryAfterMs`.
 *
 * @example
 * throw providerStatusError({
 *   status: res.status, message: body.error, headers: res.headers, ctx: { provider: 'my', model, url },
 *   keyHint: 'Check apiKey in my({...}).', modelHint: 'Check the model name.', hints: { ORYX_E_LLM_SERVER: 'Check the server logs.' },
 * });
 */
export function providerStatusError(input: {
  status: number; message: string; code?: string | null; headers?: Headers; ctx: ProviderCall; cause?: unknown;
  keyHint: string; modelHint: string; hints?: Partial<Record<LlmErrorCode, string>>;
}): OryxError {
  const { status, ctx, hints } = input;
  const server = input.message.trim() || `HTTP ${status}`;
  const data = { status, provider: ctx.provider, model: ctx.model, url: redactUrl(ctx.url), ...(input.code ? { errorCode: input.code } : {}) };
  const make = (code: LlmErrorCode, what: string, retryable: boolean, hint: string) => {
    const override = input.headers?.get('x-should-retry');
    return new OryxError(code, `${providerLabel(ctx)}: ${what} (HTTP ${status}): ${server}`, {
      cause: input.cause, data, hint,
      retryable: override === 'true' ? true : override === 'false' ? false : retryable,
      retryAfterMs: retryAfterMs(input.headers),
    });
  };
  if (status === 401 || status === 403) {
    return make('ORYX_E_LLM_AUTH', status === 401 ? 'authentication failed' : 'permission denied', false, input.keyHint);
  }
  if (status === 404) return make('ORYX_E_LLM_NOT_FOUND', 'model or endpoint not found', false, input.modelHint);
  if (status === 408) return make('ORYX_E_LLM_TIMEOUT', 'the server timed out', true, hintOf('ORYX_E_LLM_TIMEOUT', hints));
  if (status === 429) {
    if (input.code === 'insufficient_quota') {
      return make('ORYX_E_LLM_RATE_LIMIT', 'out of quota', false, 'The account has no quota left: check its plan and billing, or use another key.');
    }
    return make('ORYX_E_LLM_RATE_LIMIT', 'rate limited', true, hintOf('ORYX_E_LLM_RATE_LIMIT', hints));
  }
  if (status >= 500 || status === 409) return make('ORYX_E_LLM_SERVER', 'server error', true, hintOf('ORYX_E_LLM_SERVER', hints));
  const contextTooLong = input.code === 'context_length_exceeded' || /context length|maximum context|too many tokens/i.test(server);
  return make('ORYX_E_LLM_BAD_REQUEST', 'request rejected', false, contextTooLong
    ? 'The prompt is longer than the model allows: lower settings.context_tokens in AGENT.md, or use a model with a larger context.'
    : 'Read the server message above: usually the model name, a tool schema, or an option the server does not support.');
}
