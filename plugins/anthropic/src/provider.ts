import { OryxError, isOryxError, type ChatRequest, type ChatResponse, type Provider, type StreamEvent } from '@oryxos/provider-spec';
import {
  ServerReportedError, callCap, causeChain, checkedFetch, guardedStream, providerAbortError, providerBadResponseError, providerCallCapError, providerConnectionError,
  providerLabel, providerServerError, providerStatusError, providerTimeoutError, serverErrorOf, serverReportedIn, type ProviderCall, type ProviderFix,
} from '@oryxos/provider-kit';
import type Anthropic from '@anthropic-ai/sdk';
import { ERROR_CODES, LLM_HINTS } from './errors.ts';
import { MessageStreamAssembler, fromMessage } from './decode.ts';
import { toRequestBody } from './mapping.ts';
import type { AnthropicSettings } from './options.ts';

type Sdk = typeof import('@anthropic-ai/sdk');
interface Client { sdk: Sdk; client: Anthropic }

/**
 * The provider behind {@link anthropic}: the SDK is loaded on the first call, with its own
 * retries off (the kernel retries, so every attempt is audited and `retry-after` honoured).
 */
export function createAnthropicProvider(settings: AnthropicSettings): Provider {
  let loading: Promise<Client> | undefined;
  const named = settings.name === 'anthropic' ? '' : `name: '${settings.name}', `;
  const urlHint = `check anthropic({ ${named}baseURL })${named ? '' : ' or ANTHROPIC_BASE_URL'}: it is the API origin, without /v1.`;
  const where: ProviderFix = {
    unreachable: `Check that ${settings.baseURL ?? 'the Anthropic API'} is up and reachable from here (network, proxy), or ${urlHint}`,
    timeout: `timeoutMs in anthropic({ ${named}timeoutMs })`,
    timeoutMs: settings.timeoutMs,
    hints: LLM_HINTS,
  };
  const keyHint = `Check the API key: pass apiKey to anthropic(${named ? `{ name: '${settings.name}' }` : ''}) or set ANTHROPIC_API_KEY, and make sure it may use this model.`;
  const modelHint = 'Check the model name (agent model: or defaultModel), e.g. claude-sonnet-4-5.';

  const connect = (model: string): Promise<Client> => {
    if (!settings.apiKey) {
      return Promise.reject(new OryxError('ORYX_E_ANTHROPIC_NO_API_KEY',
        `provider "${settings.name}" (model ${model}): no API key: ANTHROPIC_API_KEY is not set and anthropic() got no apiKey`, {
          hint: ERROR_CODES.ORYX_E_ANTHROPIC_NO_API_KEY, data: { provider: settings.name, model },
        }));
    }
    loading ??= (async () => {
      const sdk = await import('@anthropic-ai/sdk');
      const client = new sdk.Anthropic({
        apiKey: settings.apiKey,
        ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
        defaultHeaders: settings.headers,
        timeout: settings.timeoutMs,
        maxRetries: 0,
        // Error bodies of any shape (a proxy's HTML page) keep the server's message.
        fetch: checkedFetch(),
      });
      return { sdk, client };
    })().catch((error) => { loading = undefined; throw error; });
    return loading;
  };

  const ctxOf = (request: ChatRequest, c: Client): ProviderCall => ({ provider: settings.name, model: request.model, url: c.client.baseURL });
  const callCapError = (ctx: ProviderCall, cause?: unknown) => providerCallCapError(ctx, settings.callTimeoutMs, `anthropic({ ${named}callTimeoutMs })`, cause);

  const classify = (error: unknown, request: ChatRequest, c: Client): OryxError => {
    if (isOryxError(error)) return error;
    const { sdk } = c;
    const ctx = ctxOf(request, c);
    if (request.signal?.aborted || error instanceof sdk.APIUserAbortError) return providerAbortError(error);
    const reported = serverReportedIn(error);
    if (reported) return providerServerError(reported, { ctx, fix: where, keyHint, modelHint, urlHint });
    if (error instanceof sdk.APIConnectionTimeoutError) return providerTimeoutError(error, ctx, where);
    if (error instanceof sdk.APIConnectionError) return providerConnectionError(error, ctx, where);
    if (error instanceof sdk.APIError) {
      const server = serverErrorOf(error.error) ?? { message: error.message.replace(/^\d{3}\s*/, '') };
      if (typeof error.status === 'number') {
        return providerStatusError({ status: error.status, message: server.message, code: server.code, headers: error.headers, ctx, cause: error, keyHint, modelHint, hints: LLM_HINTS });
      }
      // An `event: error` in the stream (overloaded_error, api_error).
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
    // Every current Claude model reads images (user messages and tool results).
    supports: () => ({ images: true }),

    async chat(request: ChatRequest): Promise<ChatResponse> {
      const c = await connect(request.model);
      const cap = callCap(settings.callTimeoutMs);
      let body: unknown;
      try {
        body = await c.client.messages.create(toRequestBody(request, settings), { signal: cap.with(request.signal), headers: request.headers });
      } catch (error) {
        if (cap.fired && !request.signal?.aborted) throw callCapError(ctxOf(request, c), error);
        throw classify(error, request, c);
      } finally {
        cap.clear();
      }
      const response = fromMessage(request, settings.name, body);
      if (!response) throw providerBadResponseError(`the answer from ${c.client.baseURL} is not a message`, ctxOf(request, c), where);
      return response;
    },

    async *stream(request: ChatRequest): AsyncIterable<StreamEvent> {
      const c = await connect(request.model);
      const assembler = new MessageStreamAssembler();
      // The SDK's timeout ends when the answer starts; then a stream silent for timeoutMs (pings
      // count as life) is cut, and however steadily it streams, one attempt ends at callTimeoutMs.
      yield* guardedStream({
        signal: request.signal, idleMs: settings.timeoutMs, capMs: settings.callTimeoutMs,
        open: (signal) => c.client.messages.create({ ...toRequestBody(request, settings), stream: true }, { signal, headers: request.headers }),
        each: (event) => assembler.push(event as unknown as { type: string }),
        fail: (kind, cause) => kind === 'cap' ? callCapError(ctxOf(request, c), cause)
          : kind === 'idle' ? providerTimeoutError(cause, ctxOf(request, c), where) : classify(cause, request, c),
      });
      if (!assembler.finished) {
        throw new OryxError('ORYX_E_LLM_CONNECTION', `${providerLabel(ctxOf(request, c))}: the stream from ${c.client.baseURL} ended before message_stop`, {
          retryable: true, hint: LLM_HINTS.ORYX_E_LLM_CONNECTION, data: { status: undefined, provider: settings.name, model: request.model },
        });
      }
      const response = assembler.response(request, settings.name);
      for (const call of response.message.toolCalls ?? []) yield { type: 'tool_call', call };
      yield { type: 'done', response };
    },
  };
}
