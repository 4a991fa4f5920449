const BRAND = Symbol.for('oryxos.error');

/** Options for {@link OryxError}. */
export interface OryxErrorOptions {
  /** How to fix it, in one sentence a user can act on. */
  hint?: string;
  cause?: unknown;
  /** True when trying the same thing again may succeed (rate limits, timeouts, resets). */
  retryable?: boolean;
  /** Server-requested wait before a retry, in milliseconds. */
  retryAfterMs?: number;
  /** Structured extra data (HTTP status, file, field…). */
  data?: Record<string, unknown>;
}

/**
 * The one error class of OryxOS. Codes look like `ORYX_E_<AREA>_<WHAT>`, are stable and
 * never reused; every package lists its codes in its README. A provider throws it with
 * `retryable` set for what may succeed when tried again, so the kernel can retry.
 *
 * Recognisable across duplicate installs through a `Symbol.for` brand, so use
 * {@link isOryxError} rather than `instanceof`.
 *
 * @example
 * throw new OryxError('ORYX_E_CONFIG_INVALID', 'plugins[2] must be a plugin object', {
 *   hint: 'Call the plugin factory: plugins: [sqlite()] rather than [sqlite]',
 * });
 */
export class OryxError extends Error {
  readonly code: string;
  readonly hint?: string;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly data?: Record<string, unknown>;

  constructor(code: string, message: string, options: OryxErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OryxError';
    this.code = code;
    this.hint = options.hint;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.data = options.data;
    Object.defineProperty(this, BRAND, { value: true });
  }

  toJSON(): { code: string; message: string; hint?: string } {
    return { code: this.code, message: this.message, ...(this.hint ? { hint: this.hint } : {}) };
  }
}

/**
 * True for any OryxError, even one created by another copy of this package.
 *
 * @example
 * if (isOryxError(error) && error.retryable) retry();
 */
export function isOryxError(value: unknown): value is OryxError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/**
 * The message of anything thrown.
 *
 * @example
 * errorMessage(new Error('x')) // 'x'
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Wraps anything thrown into an OryxError, keeping an OryxError as it is.
 *
 * @example
 * throw toOryxError(error, 'ORYX_E_LLM_FAILED');
 */
export function toOryxError(error: unknown, code: string, options: OryxErrorOptions = {}): OryxError {
  if (isOryxError(error)) return error;
  return new OryxError(code, errorMessage(error), { cause: error, ...options });
}
