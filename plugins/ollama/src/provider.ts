import { OryxError, isOryxError, type ChatRequest, type ChatResponse, type Provider, type StreamEvent } from '@oryxos/provider-spec';
import {
  callCap, causeChain, checkedFetch, providerAbortError, providerBadResponseError, providerCallCapError, providerConnectionError, providerLabel, providerServerError,
  providerTimeoutError, serverReportedIn, type ProviderCall, type ProviderFix,
} from '@oryxos/provider-kit';
import type { AbortableAsyncIterator, ChatResponse as WireResponse, ToolCall as WireToolCall } from 'ollama';
import type { ContextWindow } from './context-window.ts';
import { LLM_HINTS } from './errors.ts';
import { finishOf, fromResponse, toAssistant, toRequestBody, toToolCalls } from './mapping.ts';
import type { OllamaSettings } from './options.ts';

type Sdk = typeof import('ollama');

/** Which limit cut a call: before the first byte, between two parts, or the whole call. */
type Limit = 'firstByte' | 'idle' | 'call';

/**
 * Per-call timers shared by the fetch wrapper, the stream loop and error classification: the
 * first-byte limit until the answer starts, then (streams) the idle limit between two parts,
 * and the cap on the whole call throughout.
 */
interface CallState { readonly timedOut?: Limit; arm(limit: 'firstByte' | 'idle'): void; disarm(): void; end(): void }

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
    const wire = { ...settings, provider: settings.name, images: settings.images(request.model) };
    return toRequestBody(request, numCtx === undefined ? wire : { ...wire, modelOptions: { ...settings.modelOptions, num_ctx: numCtx } });
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
    // However steadily Ollama sends, one call attempt ends at callTimeoutMs. The cap's signal
    // follows the run's and the SDK's with listeners removed at the end of the call
    // (AbortSignal.any would keep every call's signals alive as long as the run's).
    const cap = callCap(settings.callTimeoutMs);
    const limits: { timedOut?: Limit } = {};
    let timer: NodeJS.Timeout | undefined;
    const state: CallState = {
      get timedOut() { return limits.timedOut ?? (cap.fired ? 'call' : undefined); },
      arm(limit) {
        clearTimeout(timer);
        timer = setTimeout(() => { limits.timedOut ??= limit; timeout.abort(); }, limit === 'firstByte' ? settings.firstByteTimeoutMs : settings.timeoutMs);
      },
      disarm() { clearTimeout(timer); },
      end() { clearTimeout(timer); cap.clear(); },
    };
    // Error bodies of any shape (an HTML page from a wrong host, a proxy's) keep the server's message.
    const checked = checkedFetch((input, init) => fetch(input, init));
    const fetchWithSignal: typeof fetch = async (input, init = {}) => {
      state.arm('firstByte');
      try {
        return await checked(input, { ...init, signal: cap.with(timeout.signal, request.signal, init.signal ?? undefined) });
      } finally {
        state.disarm();
      }
    };
    const headers = { ...settings.headers, ...request.headers };
    return { client: new Ollama({ host: settings.host, headers, fetch: fetchWithSignal }), state };
  };

  const classify = (error: unknown, request: ChatRequest, state: CallState): OryxError => {
    if (isOryxError(error)) return error;
    const ctx = ctxOf(request);
    if (request.signal?.aborted) return providerAbortError(error);
    if (state.timedOut) return timeoutError(state.timedOut, ctx, error);
    const reported = serverReportedIn(error);
    if (reported) {
      return providerServerError(reported, {
        ctx, fix: where, urlHint: `fix ollama({ ${named}host })${named ? '' : ' or OLLAMA_HOST'}: it is where Ollama listens (default 127.0.0.1:11434).`,
        keyHint: `Ollama itself takes no key: a proxy at ${settings.url} refused the request; pass its credentials with headers in ollama({...}).`,
        modelHint: `Pull the model with \`ollama pull ${request.model}\`, or fix the model name (agent model: or defaultModel).`,
      });
    }
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
    supports: (model) => ({ images: settings.images(model) }),

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
      const mapped = fromResponse(request, response, settings.name);
      if (!mapped) throw providerBadResponseError(`the answer from ${settings.url} has no message`, ctxOf(request), where);
      return mapped;
    },

    async *stream(request: ChatRequest): AsyncIterable<StreamEvent> {
      const { client, state } = await clientFor(request);
      let text = '';
      let thinking = '';
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
          const thought = part.message?.thinking;
          if (typeof thought === 'string' && thought) { thinking += thought; yield { type: 'reasoning', delta: thought }; }
          const delta = part.message?.content;
          if (typeof delta === 'string' && delta) { text += delta; yield { type: 'text', delta }; }
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
        message: toAssistant(settings.name, text, thinking, toolCalls),
        ...finishOf(final!, toolCalls.length > 0),
        model: final!.model || request.model,
      };
      for (const call of toolCalls) yield { type: 'tool_call', call };
      yield { type: 'done', response };
    },
  };
}
