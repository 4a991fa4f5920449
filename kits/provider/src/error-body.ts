import { OryxError } from '@oryxos/provider-spec';
import { providerBadResponseError, providerLabel, providerStatusError, type LlmErrorCode, type ProviderCall, type ProviderFix } from './errors.ts';

/** What a server said went wrong, read from an error body of whatever shape it sent. */
export interface ServerError {
  /** The server's own message (cut to 1,000 characters). */
  message: string;
  /** The server's error code or type word (`context_length_exceeded`, `INVALID_ARGUMENT`, `overloaded_error`). */
  code?: string;
  /** An HTTP status the body itself names (`{"code": 400}` in a vLLM stream, Gemini's `error.code`). */
  status?: number;
  /** True when the body was an HTML page (a proxy's or a web server's, not an API's). */
  html?: boolean;
}

const LIMIT = 1000;
const cut = (text: string) => (text.length > LIMIT ? `${text.slice(0, LIMIT)}…` : text);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v >= 100 && v <= 599 ? v : undefined);

/**
 * The error a JSON body carries, in every shape servers use: OpenAI's `{"error": {message,
 * code, type}}`, `{"error": "text"}` (Ollama, llama.cpp), a JSON **array** of those (Gemini's
 * OpenAI-compatible endpoint), `{"object": "error", message, code}` (vLLM and SGLang, also
 * inside a stream), Anthropic's `{"type": "error", "error": {type, message}}`, and FastAPI's
 * `{"detail": …}`. Undefined when the body says nothing about an error.
 *
 * @example
 * serverErrorOf([{ error: { code: 400, message: 'Function call is missing a thought_signature', status: 'INVALID_ARGUMENT' } }])
 * // { message: 'Function call is missing a thought_signature', code: 'INVALID_ARGUMENT', status: 400 }
 */
export function serverErrorOf(body: unknown): ServerError | undefined {
  if (Array.isArray(body)) {
    for (const item of body) { const found = serverErrorOf(item); if (found) return found; }
    return undefined;
  }
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  const inner = b.error;
  if (typeof inner === 'string' && inner.trim()) return { message: cut(inner.trim()), ...(str(b.code) ? { code: str(b.code) } : {}) };
  if (inner && typeof inner === 'object') {
    const e = inner as Record<string, unknown>;
    const message = str(e.message) ?? str(e.msg) ?? JSON.stringify(inner);
    const code = str(e.code) ?? str(e.status) ?? str(e.type);
    const status = num(e.code) ?? num(b.status);
    return { message: cut(message), ...(code ? { code } : {}), ...(status ? { status } : {}) };
  }
  if (b.object === 'error' || b.type === 'error') {
    const code = str(b.code) ?? str(b.type === 'error' ? undefined : b.type);
    const status = num(b.code) ?? num(b.status);
    return { message: cut(str(b.message) ?? JSON.stringify(body)), ...(code ? { code } : {}), ...(status ? { status } : {}) };
  }
  if (b.detail !== undefined) {
    const detail = typeof b.detail === 'string' ? b.detail : JSON.stringify(b.detail);
    return { message: cut(detail) };
  }
  return undefined;
}

/**
 * The error in a response body as text: parsed as JSON when it is (see {@link serverErrorOf}),
 * an HTML page summarised by its title, anything else as it is.
 *
 * @example
 * serverErrorOfText('<html><head><title>404 Not Found</title></head>…', 'text/html') // { message: 'an HTML page ("404 Not Found")', html: true }
 */
export function serverErrorOfText(text: string, contentType?: string | null): ServerError {
  const trimmed = text.trim();
  if (/^[[{]/.test(trimmed)) {
    try {
      const found = serverErrorOf(JSON.parse(trimmed));
      if (found) return found;
    } catch { /* not JSON after all */ }
  }
  if (isHtml(trimmed, contentType)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(trimmed)?.[1]?.replace(/\s+/g, ' ').trim();
    return { message: title ? `an HTML page ("${cut(title)}")` : 'an HTML page', html: true };
  }
  return { message: cut(trimmed) };
}

/** True for a body that is a web page rather than an API answer. */
export function isHtml(text: string, contentType?: string | null): boolean {
  return /text\/html/i.test(contentType ?? '') || /^<(!doctype html|html|head|body)\b/i.test(text.trimStart());
}

/**
 * An error the server reported in a body the SDK could not read (an array, an HTML page), or
 * inside a stream: thrown by {@link checkedFetch} and the stream decoders, turned into the
 * kernel's code by {@link providerServerError}.
 */
export class ServerReportedError extends Error {
  readonly server: ServerError;
  /** The HTTP status of the response, when the error came with one (not in a stream). */
  readonly httpStatus?: number;
  readonly headers?: Headers;
  /** `stream` when it came as an event of a stream that had started. */
  readonly where: 'response' | 'stream';

  constructor(server: ServerError, where: 'response' | 'stream', httpStatus?: number, headers?: Headers) {
    super(server.message);
    this.name = 'ServerReportedError';
    this.server = server;
    this.where = where;
    this.httpStatus = httpStatus;
    this.headers = headers;
  }
}

/** Finds a {@link ServerReportedError} along a `cause` chain (an SDK wraps what its `fetch` threw). */
export function serverReportedIn(error: unknown): ServerReportedError | undefined {
  for (let e = error, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ServerReportedError) return e;
  }
  return undefined;
}

/**
 * A `fetch` for an SDK that reads error bodies of any shape: a failing status is thrown as a
 * {@link ServerReportedError} carrying the server's own message (an array body, an HTML page
 * from a proxy), a 200 that is an HTML page (a wrong base URL) too, and a 200 with a JSON
 * error body to a streamed request (some servers answer `stream: true` that way). Everything
 * else passes through untouched.
 *
 * `jsonAsSse`: a 200 with one JSON answer to a streamed request (gateways that ignore
 * `stream: true`) goes on as a one-event server-sent stream, which a chat-completions decoder
 * reads like any other (the whole message in one chunk).
 *
 * @example
 * new OpenAI({ baseURL, apiKey, fetch: checkedFetch(fetch, { jsonAsSse: true }) });
 */
export function checkedFetch(base: typeof fetch = fetch, options: { jsonAsSse?: boolean } = {}): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    const type = response.headers.get('content-type') ?? '';
    // A stream (SSE, NDJSON) passes untouched; a single JSON body to a streamed request is read: it is usually an error.
    if (response.ok && !/text\/html/i.test(type) && !(wantsStream(init) && /^\s*application\/json\b/i.test(type))) return response;
    const text = await response.text().catch(() => '');
    const reported = (server: ServerError) => new ServerReportedError(server, 'response', response.status, response.headers);
    if (!response.ok || isHtml(text, type)) throw reported(serverErrorOfText(text, type));
    const server = serverErrorOf(safeJson(text));
    if (server) throw reported(server);
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    if (options.jsonAsSse) headers.set('content-type', 'text/event-stream');
    const body = options.jsonAsSse ? `data: ${text.replace(/\r?\n/g, ' ')}\n\ndata: [DONE]\n\n` : text;
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
}

const safeJson = (text: string): unknown => { try { return JSON.parse(text); } catch { return undefined; } };
const wantsStream = (init?: RequestInit) => typeof init?.body === 'string' && /"stream"\s*:\s*true/.test(init.body);

/**
 * A {@link ServerReportedError} as the kernel's code. With an HTTP status (or a status the body
 * names) it is classified like any status (`providerStatusError`: the server's message, its
 * code, `retry-after`); an HTML page with 200 is a final `ORYX_E_LLM_BAD_RESPONSE` that names
 * the URL option; an error inside a stream with no status is a retryable
 * `ORYX_E_LLM_SERVER` carrying the server's message.
 *
 * @example
 * const reported = serverReportedIn(error);
 * if (reported) throw providerServerError(reported, { ctx, fix, keyHint, modelHint });
 */
export function providerServerError(e: ServerReportedError, input: { ctx: ProviderCall; fix: ProviderFix; keyHint: string; modelHint: string; urlHint?: string }): OryxError {
  const { ctx, fix } = input;
  const status = e.httpStatus !== undefined && e.httpStatus >= 400 ? e.httpStatus : e.server.status;
  const where = e.where === 'stream' ? ' in the stream' : '';
  if (status !== undefined && status >= 400) {
    return providerStatusError({
      status, message: `${e.server.message}${where ? ` (reported${where})` : ''}`, code: e.server.code, headers: e.headers, ctx, cause: e,
      keyHint: input.keyHint, modelHint: e.server.html ? `${input.modelHint} The answer was a web page, not the API: ${input.urlHint ?? fix.unreachable}` : input.modelHint,
      hints: fix.hints,
    });
  }
  if (e.server.html) {
    return providerBadResponseError(`${ctx.url} answered with ${e.server.message}, not a model API answer`, ctx, {
      ...fix, hints: { ...fix.hints, ORYX_E_LLM_BAD_RESPONSE: `That URL serves web pages: ${input.urlHint ?? fix.unreachable}` },
    }, e);
  }
  const hint: string | undefined = fix.hints?.['ORYX_E_LLM_SERVER' satisfies LlmErrorCode];
  return new OryxError('ORYX_E_LLM_SERVER', `${providerLabel(ctx)}: the server reported an error${where}: ${e.server.message}`, {
    cause: e, retryable: true, hint: hint ?? 'The server failed while answering; it is retried while no part of the answer has been shown.',
    data: { status: undefined, provider: ctx.provider, model: ctx.model, url: ctx.url, ...(e.server.code ? { errorCode: e.server.code } : {}) },
  });
}
