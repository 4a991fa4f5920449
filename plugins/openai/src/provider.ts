import { OryxError, isOryxError, type ChatRequest, type ChatResponse, type Provider, type StreamEvent } from '@oryxos/provider-spec';
import {
  callCap, causeChain, providerAbortError, providerBadResponseError, providerCallCapError, providerConnectionError, providerLabel, providerStatusError, providerTimeoutError,
  type ProviderCall, type ProviderFix,
} from '@oryxos/provider-kit';
import type OpenAI from 'openai';
import { ERROR_CODES, LLM_HINTS } from './errors.ts';
import { fromCompletion, toRequestBody } from './mapping.ts';
import type { OpenAISettings } from './options.ts';
import { ChunkAssembler } from './stream.ts';

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
    unreachable: `Check that ${settings.baseURL ?? 'the OpenAI API'} is up and reachable from here (network, proxy), or fix openai({ ${named}baseURL })${named ? '' : ' or OPENAI_BASE_URL'}.`,
    timeout: `timeoutMs in openai({ ${named}timeoutMs })`,
    timeoutMs: settings.timeoutMs,
    hints: LLM_HINTS,
  };
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
      });
      return { sdk, client };
    })().catch((error) => { loading = undefined; throw error; });
    return loading;
  };

  const ctxOf = (request: ChatRequest, c: Client): ProviderCall => ({ provider: settings.name, model: request.model, url: c.client.baseURL });
  const callCapError = (ctx: ProviderCall, cause?: unknown) => providerCallCapError(ctx, settings.callTimeoutMs, `openai({ ${named}callTimeoutMs })`, cause);

  const classify = (error: unknown, request: ChatRequest, c: Client): OryxError => {
    if (isOryxError(error)) return error;
    const { sdk } = c;
    const ctx = ctxOf(request, c);
    if (request.signal?.aborted || error instanceof sdk.APIUserAbortError) return providerAbortError(error);
    if (error instanceof sdk.APIConnectionTimeoutError) return providerTimeoutError(error, ctx, where);
    if (error instanceof sdk.APIConnectionError) return providerConnectionError(error, ctx, where);
    if (error instanceof sdk.APIError) {
      const body = error.error as { message?: unknown } | undefined;
      const message = typeof body?.message === 'string' ? body.message : error.message.replace(/^\d{3}\s*/, '');
      if (typeof error.status === 'number') {
        return providerStatusError({
          status: error.status, message, code: error.code, headers: error.headers, ctx, cause: error, keyHint, hints: LLM_HINTS,
          modelHint: `Check the model name (agent model: or defaultModel) and that ${ctx.url} is the API base (usually ending in /v1).`,
        });
      }
      return new OryxError('ORYX_E_LLM_SERVER', `${providerLabel(ctx)}: the server reported an error in the stream: ${message}`, {
        cause: error, retryable: true, hint: LLM_HINTS.ORYX_E_LLM_SERVER, data: { status: undefined, provider: ctx.provider, model: ctx.model },
      });
    }
    const { codes, messages } = causeChain(error);
    if (codes.length || /terminated|socket|fetch failed/i.test(messages.join(' '))) return providerConnectionError(error, ctx, where);
    return providerBadResponseError(`could not read the answer from ${ctx.url}: ${messages[0]}`, ctx, where, error);
  };

  return {
    name: settings.name,
    defaultModel: settings.defaultModel,
    retry: settings.retry,

    async chat(request: ChatRequest): Promise<ChatResponse> {
      const c = await connect(request.model);
      // The SDK's timeout (timeoutMs) ends when the answer starts; the cap bounds the whole call.
      const cap = callCap(settings.callTimeoutMs);
      let completion;
      try {
        completion = await c.client.chat.completions.create(toRequestBody(request), { signal: cap.with(request.signal), headers: request.headers });
      } catch (error) {
        if (cap.fired && !request.signal?.aborted) throw callCapError(ctxOf(request, c), error);
        throw classify(error, request, c);
      } finally {
        cap.clear();
      }
      const response = fromCompletion(request, completion);
      if (!response) throw providerBadResponseError(`an answer with no choices from ${c.client.baseURL}`, ctxOf(request, c), where);
      return response;
    },

    async *stream(request: ChatRequest): AsyncIterable<StreamEvent> {
      const c = await connect(request.model);
      const assembler = new ChunkAssembler();
      // The SDK's timeout ends when the answer starts; a stream that then goes silent for
      // timeoutMs is cut here, so a stalled server cannot hang a run.
      const idle = new AbortController();
      let idleTimer: NodeJS.Timeout | undefined;
      const rearm = () => { clearTimeout(idleTimer); idleTimer = setTimeout(() => idle.abort(), settings.timeoutMs); };
      // However steadily it streams, one call attempt ends at callTimeoutMs.
      const cap = callCap(settings.callTimeoutMs);
      const signal = cap.with(request.signal ? AbortSignal.any([request.signal, idle.signal]) : idle.signal);
      try {
        const stream = await c.client.chat.completions.create(
          { ...toRequestBody(request), stream: true, stream_options: { include_usage: true } },
          { signal, headers: request.headers },
        );
        rearm();
        for await (const chunk of stream) {
          rearm();
          const delta = assembler.push(chunk);
          if (delta) yield { type: 'text', delta };
        }
      } catch (error) {
        if (cap.fired && !request.signal?.aborted) throw callCapError(ctxOf(request, c), error);
        if (idle.signal.aborted && !request.signal?.aborted) throw providerTimeoutError(error, ctxOf(request, c), where);
        throw classify(error, request, c);
      } finally {
        clearTimeout(idleTimer);
        cap.clear();
      }
      // The SDK ends the iteration quietly on abort; the kernel must still see an abort or a timeout.
      if (request.signal?.aborted) throw providerAbortError(request.signal.reason);
      if (cap.fired) throw callCapError(ctxOf(request, c));
      if (idle.signal.aborted) throw providerTimeoutError(undefined, ctxOf(request, c), where);
      if (!assembler.finished) {
        throw new OryxError('ORYX_E_LLM_CONNECTION',
          `${providerLabel({ provider: settings.name, model: request.model, url: c.client.baseURL })}: the stream from ${c.client.baseURL} ended before the model finished`, {
            retryable: true, hint: LLM_HINTS.ORYX_E_LLM_CONNECTION, data: { status: undefined, provider: settings.name, model: request.model },
          });
      }
      const response = assembler.response(request);
      for (const call of response.message.toolCalls ?? []) yield { type: 'tool_call', call };
      yield { type: 'done', response };
    },
  };
}
