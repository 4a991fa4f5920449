import { OryxError } from '@oryxos/provider-spec';
import { providerLabel, type ProviderCall } from './errors.ts';
import { redactUrl } from './url.ts';

/** A timer that aborts one call attempt at `ms`, however steadily the server sends. */
export interface CallCap {
  readonly fired: boolean;
  /**
   * The signal of this attempt: it aborts when the cap fires or when any of `sources` aborts
   * (with that source's reason). One per cap: a second call adds its sources to the same signal.
   */
  with(...sources: (AbortSignal | undefined)[]): AbortSignal;
  /** Stops the timer and lets go of every source: call it in `finally`. */
  clear(): void;
}

/**
 * Starts the cap of one call attempt (`callTimeoutMs`).
 *
 * The attempt's signal is a plain controller that follows its sources through listeners
 * removed in {@link CallCap.clear}: `AbortSignal.any` would tie the combined signal to the
 * run's signal (on Node 20, for as long as that one lives), and the SDKs add an `abort`
 * listener to the signal they get that they never remove, so each model call of a long run
 * or a long-lived server would stay in memory.
 *
 * @example
 * const cap = callCap(180_000);
 * try { await fetch(url, { signal: cap.with(request.signal) }); } finally { cap.clear(); }
 */
export function callCap(ms: number): CallCap {
  const controller = new AbortController();
  const capped = { fired: false };
  const followed: { source: AbortSignal; listener: () => void }[] = [];
  const timer = setTimeout(() => { capped.fired = true; controller.abort(new Error(`callTimeoutMs (${ms} ms) reached`)); }, ms);
  const clear = () => {
    clearTimeout(timer);
    for (const { source, listener } of followed.splice(0)) source.removeEventListener('abort', listener);
  };
  return {
    get fired() { return capped.fired; },
    with(...sources) {
      for (const source of sources) {
        if (!source || controller.signal.aborted) continue;
        if (source.aborted) { controller.abort(source.reason); continue; }
        const listener = () => controller.abort(source.reason);
        source.addEventListener('abort', listener, { once: true });
        followed.push({ source, listener });
      }
      return controller.signal;
    },
    clear,
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
