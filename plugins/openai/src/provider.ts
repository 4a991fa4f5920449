import { OryxError, isOryxError, type ChatRequest, type ChatResponse, type Provider, type StreamEvent } from '@oryxos/provider-spec';
import {
  ChatChunkAssembler, ServerReportedError, callCap, causeChain, checkedFetch, guardedStream, providerAbortError, redactUrl, providerBadResponseError, providerCallCapError, providerConnectionError,
  providerLabel, providerServerError, providerStatusError, providerTimeoutError, serverErrorOf, serverReportedIn, type ProviderCall, type ProviderFix,
} from '@oryxos/provider-kit';
import type OpenAI from 'openai';
import { ERROR_CODES, LLM_HINTS } from './errors.ts';
import { fromCompletion, toRequestBody, type WireOptions } from './mapping.ts';
import type { OpenAISettings } from './options.ts';

type Sdk = typeof import('openai');
interface Client { sdk: Sdk; client: OpenAI }

/**
 * The provider behind {@link openai}: the SDK is loaded on the first call, with its own
 * retries off (the kernel retries, so every attempt is audited).
 */
export function createOpenAIProvider(settings: OpenAISettings): Provider {
  let loading: Promise<Client> | undefined;
  const named = settings.name === 'openai' ? '' : `name: '${settings.name}', `;
  const where: ProviderFix = {
    unreachable: `Check that ${settings.baseURL ? redactUrl(settings.baseURL) : 'the OpenAI API'} is up and reachable from here (network, proxy), or fix openai({ ${named}baseURL })${named ? '' : ' or OPENAI_BASE_URL'}.`,
    timeout: `timeoutMs in openai({ ${named}timeoutMs })`,
    timeoutMs: settings.timeoutMs,
    hints: LLM_HINTS,
  };
  const urlHint = `check openai({ ${named}baseURL })${named ? '' : ' or OPENAI_BASE_URL'}: it is the API base, usually ending in /v1.`;
  const wire = (model: string): WireOptions => ({ provider: settings.name, reasoningEcho: settings.reasoningEcho, images: settings.images(model), maxTokensField: settings.maxTokensField });
  const keyHint = `Check the API key: pass apiKey to openai(${settings.name === 'openai' ? '' : `{ name: '${settings.name}' }`}) or set OPENAI_API_KEY, and make sure it may use this model.`;

  const connect = (model: string): Promise<Client> => {
    if (!settings.apiKey && !settings.baseURL) {
      return Promise.reject(new OryxError('ORYX_E_OPENAI_NO_API_KEY',
        `provider "${settings.name}" (model ${model}): no API key: OPENAI_API_KEY is not set and openai() got no apiKey`, {
          hint: ERROR_CODES.ORYX_E_OPENAI_NO_API_KEY, data: { provider: settings.name, model },
        }));
    }
    loading ??= (async () => {
      const sdk = await import('openai');
      const client = new sdk.OpenAI({
        // Local compatible servers (vLLM, LM Studio) take no key, but the SDK insists on one.
        apiKey: settings.apiKey ?? 'not-needed',
        baseURL: settings.baseURL ?? null,
        defaultHeaders: settings.headers,
        timeout: settings.timeoutMs,
        maxRetries: 0,
        // Error bodies of any shape (Gemini's JSON array, a proxy's HTML page) keep the server's
        // message; a whole completion sent to a streamed request is read as a one-chunk stream.
        fetch: checkedFetch(fetch, { jsonAsSse: true }),
      });
      return { sdk, client };
    })().catch((error) => { loading = undefined; throw error; });
    return loading;
  };

  const ctxOf = (request: ChatRequest, c: Client): ProviderCall => ({ provider: settings.name, model: request.model, url: redactUrl(c.client.baseURL) });
  const callCapError = (ctx: ProviderCall, cause?: unknown) => providerCallCapError(ctx, settings.callTimeoutMs, `openai({ ${named}callTimeoutMs })`, cause);

  const classify = (error: unknown, request: ChatRequest, c: Client): OryxError => {
    if (isOryxError(error)) return error;
    const { sdk } = c;
    const ctx = ctxOf(request, c);
    if (request.signal?.aborted || error instanceof sdk.APIUserAbortError) return providerAbortError(error);
    const modelHint = `Check the model name (agent model: or defaultModel) and that ${ctx.url} is the API base (usually ending in /v1).`;
    const reported = serverReportedIn(error);
    if (reported) return providerServerError(reported, { ctx, fix: where, keyHint, modelHint, urlHint });
    if (error instanceof sdk.APIConnectionTimeoutError) return providerTimeoutError(error, ctx, where);
    if (error instanceof sdk.APIConnectionError) return providerConnectionError(error, ctx, where);
    if (error instanceof sdk.APIError) {
      const body = error.error as { message?: unknown } | undefined;
      const message = typeof body?.message === 'string' ? body.message : error.message.replace(/^\d{3}\s*/, '');
      if (typeof error.status === 'number') {
        return providerStatusError({
          status: error.status, message, code: error.code, headers: error.headers, ctx, cause: error, keyHint, hints: LLM_HINTS, modelHint,
        });
      }
      // An `{"error": …}` event inside the stream: its code, when it names a status, decides.
      const server = serverErrorOf({ error: error.error }) ?? { message };
      return providerServerError(new ServerReportedError(server, 'stream'), { ctx, fix: where, keyHint, modelHint, urlHint });
    }
    const { codes, messages } = causeChain(error);
    if (codes.length || /terminated|socket|fetch failed/i.test(messages.join(' '))) return providerConnectionError(error, ctx, where);
    return providerBadResponseError(`could not read the answer from ${ctx.url}: ${messages[0]}`, ctx, where, error);
  };

  return {
    name: settings.name,
    defaultModel: settings.defaultModel,
    retry: settings.retry,
    supports: (model) => ({ images: settings.images(model) }),

    async chat(request: ChatRequest): Promise<ChatResponse> {
      const c = await connect(request.model);
      // The SDK's timeout (timeoutMs) ends when the answer starts; the cap bounds the whole call.
      const cap = callCap(settings.callTimeoutMs);
      let completion;
      try {
        completion = await c.client.chat.completions.create(toRequestBody(request, wire(request.model)), { signal: cap.with(request.signal), headers: request.headers });
      } catch (error) {
        if (cap.fired && !request.signal?.aborted) throw callCapError(ctxOf(request, c), error);
        throw classify(error, request, c);
      } finally {
        cap.clear();
      }
      let response;
      try {
        response = fromCompletion(request, completion, settings.name);
      } catch (error) {
        throw classify(error, request, c);
      }
      if (!response) throw providerBadResponseError(`an answer with no choices from ${redactUrl(c.client.baseURL)}`, ctxOf(request, c), where);
      return response;
    },

    async *stream(request: ChatRequest): AsyncIterable<StreamEvent> {
      const c = await connect(request.model);
      const assembler = new ChatChunkAssembler();
      // The SDK's timeout ends when the answer starts; then a stream silent for timeoutMs is cut,
      // and however steadily it streams, one attempt ends at callTimeoutMs.
      yield* guardedStream({
        signal: request.signal, idleMs: settings.timeoutMs, capMs: settings.callTimeoutMs,
        open: (signal) => c.client.chat.completions.create(
          { ...toRequestBody(request, wire(request.model)), stream: true, stream_options: { include_usage: true } },
          { signal, headers: request.headers },
        ),
        each: (chunk) => assembler.push(chunk),
        fail: (kind, cause) => kind === 'cap' ? callCapError(ctxOf(request, c), cause)
          : kind === 'idle' ? providerTimeoutError(cause, ctxOf(request, c), where) : classify(cause, request, c),
      });
      if (!assembler.finished) {
        throw new OryxError('ORYX_E_LLM_CONNECTION',
          `${providerLabel(ctxOf(request, c))}: the stream from ${redactUrl(c.client.baseURL)} ended before the model finished`, {
            retryable: true, hint: LLM_HINTS.ORYX_E_LLM_CONNECTION, data: { status: undefined, provider: settings.name, model: request.model },
          });
      }
      const response = assembler.response(request, settings.name);
      for (const call of response.message.toolCalls ?? []) yield { type: 'tool_call', call };
      yield { type: 'done', response };
    },
  };
}
