import { OryxError, providerLabel, type ProviderCall } from '@oryxos/kernel';

// The same error as @oryxos/plugin-openai's: it belongs with the kernel's provider helpers
// (providerTimeoutError), which this wave could not change.

/**
 * The call went on past its cap (`callTimeoutMs`) and was cut. Final, not retried: a retry
 * would most likely take as long again.
 */
export function providerCallCapError(ctx: ProviderCall, ms: number, option: string, cause?: unknown): OryxError {
  return new OryxError('ORYX_E_LLM_TIMEOUT', `${providerLabel(ctx)}: the call to ${ctx.url} was still going after callTimeoutMs (${ms} ms) and was cut`, {
    cause, retryable: false,
    data: { status: undefined, provider: ctx.provider, model: ctx.model, url: ctx.url, limit: 'callTimeoutMs' },
    hint: `The answer took longer than one call may: raise callTimeoutMs in ${option} for long answers, or ask for a shorter one. `
      + 'It was not retried (a retry would take as long); the session keeps every step committed before the cut.',
  });
}
