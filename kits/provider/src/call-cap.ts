import { OryxError } from '@oryxos/kernel';
import { providerLabel, type ProviderCall } from './errors.ts';
import { redactUrl } from './url.ts';

/** A timer that aborts one call attempt at `ms`, however steadily the server sends. */
export interface CallCap {
  readonly fired: boolean;
  /** `signal` combined with the cap's. */
  with(signal?: AbortSignal): AbortSignal;
  clear(): void;
}

/**
 * Starts the cap of one call attempt (`callTimeoutMs`).
 *
 * @example
 * const cap = callCap(180_000);
 * try { await fetch(url, { signal: cap.with(request.signal) }); } finally { cap.clear(); }
 */
export function callCap(ms: number): CallCap {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  return {
    get fired() { return controller.signal.aborted; },
    with: (signal) => (signal ? AbortSignal.any([signal, controller.signal]) : controller.signal),
    clear: () => clearTimeout(timer),
  };
}

/**
 * The call went on past its cap (`callTimeoutMs`) and was cut: final `ORYX_E_LLM_TIMEOUT`, not
 * retried, since a retry would most likely take as long again. `option` names where the user
 * raises it, e.g. `openai({ callTimeoutMs })`.
 *
 * @example
 * if (cap.fired) throw providerCallCapError({ provider: 'my', model, url }, 180_000, 'my({ callTimeoutMs })', error);
 */
export function providerCallCapError(ctx: ProviderCall, ms: number, option: string, cause?: unknown): OryxError {
  return new OryxError('ORYX_E_LLM_TIMEOUT', `${providerLabel(ctx)}: the call to ${redactUrl(ctx.url)} was still going after callTimeoutMs (${ms} ms) and was cut`, {
    cause, retryable: false,
    data: { status: undefined, provider: ctx.provider, model: ctx.model, url: redactUrl(ctx.url), limit: 'callTimeoutMs' },
    hint: `The answer took longer than one call may: raise callTimeoutMs in ${option} for long answers, or ask for a shorter one. `
      + 'It was not retried (a retry would take as long); the session keeps every step committed before the cut.',
  });
}
