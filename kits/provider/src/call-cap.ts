import { OryxError } from '@oryxos/provider-spec';
import { providerAbortError, providerLabel, type ProviderCall } from './errors.ts';
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

/** Options of {@link guardedStream}. */
export interface GuardedStreamOptions<Part, Out> {
  /** The run's signal: an abort ends the stream with `ORYX_E_RUN_ABORTED`. */
  signal?: AbortSignal;
  /** How long the stream may send nothing once it is open (`timeoutMs`): a silent one is cut. */
  idleMs: number;
  /** How long the whole attempt may take however steadily it streams (`callTimeoutMs`). */
  capMs: number;
  /** Opens the stream with the attempt's signal (the SDK's own timeout covers the wait for its start). */
  open(signal: AbortSignal): Promise<AsyncIterable<Part>>;
  /** What each part of the stream gives (an assembler's deltas); what it throws is a failure of the stream. */
  each(part: Part): Iterable<Out>;
  /**
   * The error to end with: `cap` when `capMs` cut it, `idle` when `idleMs` did, `failed` for any
   * other failure (`cause`: what was thrown), classified by the provider.
   */
  fail(kind: 'cap' | 'idle' | 'failed', cause?: unknown): OryxError;
}

/**
 * A streamed call attempt of an SDK, guarded as every provider's must be: cut when it goes silent
 * for `idleMs` and when it reaches `capMs`, with its timers and listeners released however it
 * ends (a consumer that stops early included). An SDK that ends its iteration quietly on an
 * abort still ends the stream with the abort or the timeout that caused it.
 *
 * @example
 * for await (const delta of guardedStream({ signal: request.signal, idleMs: 60_000, capMs: 180_000,
 *   open: (signal) => client.chat.completions.create({ ...body, stream: true }, { signal }),
 *   each: (chunk) => assembler.push(chunk), fail: (kind, cause) => errorOf(kind, cause) })) yield delta;
 */
export async function* guardedStream<Part, Out>(options: GuardedStreamOptions<Part, Out>): AsyncGenerator<Out, void, undefined> {
  const { signal: run } = options;
  const idle = new AbortController();
  let idleTimer: NodeJS.Timeout | undefined;
  const rearm = () => { clearTimeout(idleTimer); idleTimer = setTimeout(() => idle.abort(), options.idleMs); };
  const cap = callCap(options.capMs);
  try {
    const stream = await options.open(cap.with(run, idle.signal));
    rearm();
    for await (const part of stream) {
      rearm();
      yield* options.each(part);
    }
  } catch (error) {
    if (cap.fired && !run?.aborted) throw options.fail('cap', error);
    if (idle.signal.aborted && !run?.aborted) throw options.fail('idle', error);
    throw options.fail('failed', error);
  } finally {
    clearTimeout(idleTimer);
    cap.clear();
  }
  if (run?.aborted) throw providerAbortError(run.reason);
  if (cap.fired) throw options.fail('cap');
  if (idle.signal.aborted) throw options.fail('idle');
}
