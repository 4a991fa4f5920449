import { setTimeout as sleep } from 'node:timers/promises';
import { OryxError, toOryxError, type ChatRequest, type ChatResponse, type Provider } from '@oryxos/provider-spec';
import { BudgetExceeded, type RunBudget } from '@oryxos/stop-rules';
import type { LLMCallInfo } from './hooks.ts';
import type { Kernel } from './kernel.ts';
import type { PromptReport, RunContext, RunEvent } from './types.ts';

/** How {@link callModel} calls: streamed or not, where events go, the run's budget and the prompt's report. */
export interface CallOptions {
  stream: boolean;
  emit: (e: RunEvent) => void;
  /** Retries are taken from it; without one only the provider's `maxRetries` caps them. */
  budget?: RunBudget;
  /** What the prompt holds and what was cut, for the hooks (the audit stores it). */
  report?: PromptReport;
}

/**
 * One model call with retries: errors marked `retryable` are tried again with exponential
 * backoff and full jitter (honouring `retry-after`), each attempt seen by `beforeLLM` and then
 * `afterLLM` or `llmError`. A streamed call that already emitted text is not retried.
 */
export async function callModel(kernel: Kernel, provider: Provider, request: ChatRequest, run: RunContext, options: CallOptions): Promise<ChatResponse> {
  const { stream, emit, budget, report } = options;
  const { maxRetries = 2, baseDelayMs = 500, maxDelayMs = 30_000 } = provider.retry ?? {};
  for (let attempt = 1; ; attempt++) {
    const started = performance.now();
    const info = (): LLMCallInfo => ({ run, request, attempt, latencyMs: Math.round(performance.now() - started), ...(report ? { prompt: report } : {}) });
    await kernel.hooks.beforeLLM.promise(info());
    const shown = { text: false };
    try {
      const response = stream && provider.stream ? await streamed(provider, request, emit, shown) : await provider.chat(request);
      return await kernel.hooks.afterLLM.promise(response, info());
    } catch (error) {
      const e = run.signal.aborted
        ? new OryxError('ORYX_E_RUN_ABORTED', 'The run was aborted', { cause: error })
        : toOryxError(error, 'ORYX_E_LLM_FAILED', { hint: `The call to provider "${provider.name}" (model ${request.model}) failed.` });
      if (e.data?.hook === 'afterLLM') throw e;
      const retryable = e.retryable && attempt <= maxRetries && !shown.text && !run.signal.aborted;
      // Retries come out of the run's budget: a provider failing every time cannot retry forever.
      const over = retryable ? budget?.takeRetry() : undefined;
      const willRetry = retryable && !over;
      await kernel.hooks.llmError.promise(e, { ...info(), willRetry });
      // Once text was shown a retry would show it twice, so it is not retried: say so.
      if (shown.text && e.retryable && !run.signal.aborted) throw cutOffError(e);
      if (over) throw new BudgetExceeded(over, { cause: e });
      if (!willRetry) throw e;
      const delayMs = Math.min(maxDelayMs, Math.max(e.retryAfterMs ?? 0, Math.random() * baseDelayMs * 2 ** (attempt - 1)));
      emit({ type: 'retry', attempt, delayMs: Math.round(delayMs), error: { code: e.code, message: e.message } });
      await sleep(delayMs, undefined, { signal: run.signal }).catch(() => {});
      if (run.signal.aborted) throw new OryxError('ORYX_E_RUN_ABORTED', 'The run was aborted');
    }
  }
}

/** A streamed call: text and reasoning as events, then the whole response. */
async function streamed(provider: Provider, request: ChatRequest, emit: (e: RunEvent) => void, shown: { text: boolean }): Promise<ChatResponse> {
  let response: ChatResponse | undefined;
  for await (const event of provider.stream!(request)) {
    if (event.type === 'text' && event.delta) { shown.text = true; emit({ type: 'token', text: event.delta }); }
    if (event.type === 'reasoning' && event.delta) emit({ type: 'reasoning', text: event.delta });
    if (event.type === 'done') response = event.response;
  }
  if (!response) throw new OryxError('ORYX_E_LLM_FAILED', `${provider.name}: the stream ended without a final response`, { retryable: true });
  return response;
}

/** A stream that failed after text was shown: not retried, and the hint says what is kept. */
function cutOffError(e: OryxError): OryxError {
  return new OryxError(e.code, `${e.message} (after part of the answer was shown)`, {
    cause: e, data: e.data,
    hint: 'The answer was cut off after it had started, so it was not retried (a retry would repeat what was shown). '
      + 'The session keeps every step committed before the cut; send the message again to continue.',
  });
}
