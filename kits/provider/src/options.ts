import { shape as s, type OptionalShape } from '@oryxos/schema-kit';
import type { RetryPolicy } from '@oryxos/provider-spec';

/**
 * The timeout and retry options every provider plugin takes, so they read, validate and
 * default the same everywhere. A plugin's options interface extends this.
 *
 * @example
 * export interface MyOptions extends ProviderCallOptions { baseURL?: string }
 */
export interface ProviderCallOptions {
  /**
   * Idle limit in ms: how long the server may send nothing, before the answer starts (a
   * local server loading the model included) and between two parts of a stream. Default
   * 60000 (1 min).
   */
  timeoutMs?: number;
  /** Cap in ms on one whole model call attempt, however steadily it streams. Default 180000 (3 min). */
  callTimeoutMs?: number;
  /** Retries after a retryable failure (429, 5xx, timeout, reset), done by the kernel. Default 2. */
  maxRetries?: number;
  /** First retry backoff in ms; doubles each retry, with full jitter. Default 500. */
  retryBaseDelayMs?: number;
  /** Cap for one retry wait in ms, `retry-after` included. Default 30000. */
  retryMaxDelayMs?: number;
}

/**
 * The defaults of {@link ProviderCallOptions}.
 *
 * @example
 * const timeoutMs = options.timeoutMs ?? PROVIDER_CALL_DEFAULTS.timeoutMs; // 60000
 */
export const PROVIDER_CALL_DEFAULTS = { timeoutMs: 60_000, callTimeoutMs: 180_000, maxRetries: 2, retryBaseDelayMs: 500, retryMaxDelayMs: 30_000 } as const;

/**
 * The shapes of {@link ProviderCallOptions}, to spread into a plugin's option shape.
 *
 * @example
 * const options = s.object({ baseURL: s.string().optional(), ...PROVIDER_CALL_SHAPE });
 */
export const PROVIDER_CALL_SHAPE: Record<keyof ProviderCallOptions, OptionalShape<number>> = {
  timeoutMs: s.integer({ above: 0 }).optional(),
  callTimeoutMs: s.integer({ above: 0 }).optional(),
  maxRetries: s.integer({ min: 0, max: 10 }).optional(),
  retryBaseDelayMs: s.integer({ min: 0 }).optional(),
  retryMaxDelayMs: s.integer({ min: 0 }).optional(),
};

/**
 * The kernel's {@link RetryPolicy} from the retry options, defaults filled in.
 *
 * @example
 * retryPolicy({ maxRetries: 5 }) // { maxRetries: 5, baseDelayMs: 500, maxDelayMs: 30000 }
 */
export function retryPolicy(options: ProviderCallOptions): Required<RetryPolicy> {
  return {
    maxRetries: options.maxRetries ?? PROVIDER_CALL_DEFAULTS.maxRetries,
    baseDelayMs: options.retryBaseDelayMs ?? PROVIDER_CALL_DEFAULTS.retryBaseDelayMs,
    maxDelayMs: options.retryMaxDelayMs ?? PROVIDER_CALL_DEFAULTS.retryMaxDelayMs,
  };
}
