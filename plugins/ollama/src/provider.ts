import { OryxError, isOryxError, type ChatRequest, type ChatResponse, type Provider, type StreamEvent } from '@oryxos/provider-spec';
import {
  causeChain, providerAbortError, providerBadResponseError, providerCallCapError, providerConnectionError, providerLabel, providerStatusError, providerTimeoutError,
  type ProviderCall, type ProviderFix,
} from '@oryxos/provider-kit';
import type { AbortableAsyncIterator, ChatResponse as WireResponse, ToolCall as WireToolCall } from 'ollama';
import type { ContextWindow } from './context-window.ts';
import { LLM_HINTS } from './errors.ts';
import { finishOf, fromResponse, toRequestBody, toToolCalls } from './mapping.ts';
import type { OllamaSettings } from './options.ts';

type Sdk = typeof import('ollama');

/** Which limit cut a call: before the first byte, between two parts, or the whole call. */
type Limit = 'firstByte' | 'idle' | 'call';

/**
 * Per-call timers shared by the fetch wrapper, the stream loop and error classification: the
 * first-byte limit until the answer starts, then (streams) the idle limit between two parts,
 * and the cap on the whole call throughout.
 */
interface CallState { timedOut?: Limit; arm(limit: 'firstByte' | 'idle'): void; disarm(): void; end(): void }

/**
 * The provider behind {@link ollama}. The SDK is loaded on the first call. Its non-streamed
 * calls take no AbortSignal, so each call gets a client whose `fetch` carries the call's
 * signal and the timeout, and turns HTTP errors (with their headers) into OryxErrors.
 */
export function createOllamaProvider(settings: OllamaSettings, window?: ContextWindow): Provider {
  let loading: Promise<Sdk> | undefined;
  const load = () => (loading ??= import('ollama').catch((error) => { loading = undefined; throw error; }));
  const named = settings.name === 'ollama' ? '' : `name: '${settings.name}', `;
  const where: ProviderFix = {
    unreachable: `Start Ollama (\`ollama serve\`) at ${settings.url}, or fix ollama({ ${named}host })${named ? '' : ' or OLLAMA_HOST'} to where it listens.`,
    timeout: `timeoutMs in ollama({ ${named}timeoutMs })`,
    timeoutMs: settings.timeoutMs,
    hints: LLM_HINTS,
  };
  const bodyOf = async (request: ChatRequest) => {
    const numCtx = await window?.numCtx(request);
    return toRequestBody(request, numCtx === undefined ? settings : { ...settings, modelOptions: { ...settings.modelOptions, num_ctx: numCtx } });
  };
  const ctxOf = (request: ChatRequest): ProviderCall => ({ provider: settings.name, model: request.model, url: settings.url });

  const timeoutError = (limit: Limit, ctx: ProviderCall, cause?: unknown): OryxError => {
    if (limit === 'call') return providerCallCapError(ctx, settings.callTimeoutMs, `ollama({ ${named}callTimeoutMs })`, cause);
    if (limit === 'idle') return providerTimeoutError(cause, ctx, where);
    return new OryxError('ORYX_E_LLM_TIMEOUT',
      `${providerLabel(ctx)}: ${ctx.url} did not start answering within firstByteTimeoutMs (${settings.firstByteTimeoutMs} ms)`, {
        cause, retryable: true, data: { status: undefined, provider: ctx.provider, model: ctx.model, url: ctx.url, limit: 'firstByteTimeoutMs' },
        hint: `Loading the model and reading the prompt happen before the first byte: raise firstByteTimeoutMs in ollama({ ${named}firstByteTimeoutMs }) `
          + 'for large models or long prompts on a CPU, or check that Ollama is not stuck (`ollama ps`). It is retried while no part of the answer has been shown.',
      });
  };

  const clientFor = async (request: ChatRequest) => {
    const { Ollama } = await load();
    const timeout = new AbortController();
    const cut = (limit: Limit) => { state.timedOut ??= limit; timeout.abort(); };
    let timer: NodeJS.Timeout | undefined;
    const cap = setTimeout(() => cut('call'), settings.callTimeoutMs);
    const state: CallState = {
      arm(limit) {
        clearTimeout(timer);
        timer = setTimeout(() => cut(limit), limit === 'firstByte' ? settings.firstByteTimeoutMs : settings.timeoutMs);
      },
      disarm() { clearTimeout(timer); },
      end() { clearTimeout(timer); clearTimeout(cap); },
    };
    const fetchWithSignal: typeof fetch = async (input, init = {}) => {
      const signals = [timeout.signal, request.signal, init.signal].filter((s): s is AbortSignal => !!s);
      state.arm('firstByte');
      let response: Response;
      try {
        response = await fetch(input, { ...init, signal: AbortSignal.any(signals) });
      } finally {
        state.disarm();
      }
      if (!response.ok) throw await httpError(response, request);
      return response;
    };
    const headers = { ...settings.headers, ...request.headers };
    return { client: new Ollama({ host: settings.host, headers, fetch: fetchWithSignal }), state };
  };

  const httpError = async (response: Response, request: ChatRequest): Promise<OryxError> => {
    const text = await response.text().catch(() => '');
    let message = text;
    try { const body = JSON.parse(text); if (typeof body?.error === 'string') message = body.error; } catch { /* not JSON */ }
    return providerStatusError({
      status: response.status, message: message.slice(0, 1000), headers: response.headers, ctx: ctxOf(request), hints: LLM_HINTS,
      keyHint: `Ollama itself takes no key: a proxy at ${settings.url} refused the request; pass its credentials with headers in ollama({...}).`,
      modelHint: `Pull the model with \`ollama pull ${request.model}\`, or fix the model name (agent model: or defaultModel).`,
    });
  };

  const classify = (error: unknown, request: ChatRequest, state: CallState): OryxError => {
    if (isOryxError(error)) return error;
    const ctx = ctxOf(request);
    if (request.signal?.aborted) return providerAbortError(error);
    if (state.timedOut) return timeoutError(state.timedOut, ctx, error);
    const { codes, messages } = causeChain(error);
    if (/did not receive done/i.test(messages[0] ?? '')) {
      return new OryxError('ORYX_E_LLM_CONNECTION', `${providerLabel(ctx)}: the stream from ${ctx.url} ended before the model finished`, {
        cause: error, retryable: true, hint: LLM_HINTS.ORYX_E_LLM_CONNECTION, data: { status: undefined, provider: ctx.provider, model: ctx.model },
      });
    }
    if (codes.length || /terminated|fetch failed|socket/i.test(messages.join(' '))) return providerConnectionError(error, ctx, where);
    if (error instanceof SyntaxError) {
      return providerBadResponseError(`could not read the answer from ${ctx.url}: ${messages[0]}`, ctx, where, error);
    }
    // The SDK throws a plain Error for an {"error": …} line inside a stream.
    return new OryxError('ORYX_E_LLM_SERVER', `${providerLabel(ctx)}: Ollama reported an error: ${messages[0]}`, {
      cause: error, retryable: true, hint: LLM_HINTS.ORYX_E_LLM_SERVER, data: { status: undefined, provider: ctx.provider, model: ctx.model },
    });
  };

  return {
    name: settings.name,
    defaultModel: settings.defaultModel,
    retry: settings.retry,

    async chat(request: ChatRequest): Promise<ChatResponse> {
      const { client, state } = await clientFor(request);
      let response: WireResponse;
      try {
        response = await client.chat({ ...await bodyOf(request), stream: false });
      } catch (error) {
        throw classify(error, request, state);
      } finally {
        state.end();
      }
      const mapped = fromResponse(request, response);
      if (!mapped) throw providerBadResponseError(`the answer from ${settings.url} has no message`, ctxOf(request), where);
      return mapped;
    },

    async *stream(request: ChatRequest): AsyncIterable<StreamEvent> {
      const { client, state } = await clientFor(request);
      let text = '';
      const calls: WireToolCall[] = [];
      let final: WireResponse | undefined;
      let iterator: AbortableAsyncIterator<WireResponse> | undefined;
      try {
        const parts = await client.chat({ ...await bodyOf(request), stream: true });
        iterator = parts;
        // Headers may come before the model is loaded: the first-byte limit runs until the first
        // part; then a stream that goes silent for timeoutMs is cut, so a stalled server cannot hang a run.
        state.arm('firstByte');
        for await (const part of parts) {
          state.arm('idle');
          const delta = part.message?.content;
          if (delta) { text += delta; yield { type: 'text', delta }; }
          if (part.message?.tool_calls?.length) calls.push(...part.message.tool_calls);
          if (part.done) final = part;
        }
      } catch (error) {
        throw classify(error, request, state);
      } finally {
        state.end();
        // A consumer that stops early must not leave the HTTP request running.
        if (!final) iterator?.abort();
      }
      if (request.signal?.aborted) throw providerAbortError(request.signal.reason);
      if (state.timedOut) throw timeoutError(state.timedOut, ctxOf(request));
      const toolCalls = toToolCalls(request, calls);
      const response: ChatResponse = {
        message: { role: 'assistant', content: text, ...(toolCalls.length ? { toolCalls } : {}) },
        ...finishOf(final!, toolCalls.length > 0),
        model: final!.model || request.model,
      };
      for (const call of toolCalls) yield { type: 'tool_call', call };
      yield { type: 'done', response };
    },
  };
}
