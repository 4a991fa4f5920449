import type { LlmErrorCode } from '@oryxos/provider-kit';

/**
 * Every error code this package throws, with how to fix it. The README lists the same
 * codes; a test keeps the two in step. A failed model call uses the kernel's ORYX_E_LLM_*
 * codes instead, with the hints below.
 */
export const ERROR_CODES = {
  ORYX_E_ANTHROPIC_OPTIONS: 'Fix the option the message names in anthropic({...}) in oryx.config.ts.',
  ORYX_E_ANTHROPIC_NO_API_KEY: 'Set ANTHROPIC_API_KEY, or pass apiKey to anthropic().',
} as const;

/** This provider's hints for the kernel's model-call codes (the key, model and URL hints are built per call). */
export const LLM_HINTS = {
  ORYX_E_LLM_RATE_LIMIT: 'Rate limited (429): retried after retry-after, up to maxRetries times; raise maxRetries or lower the request rate.',
  ORYX_E_LLM_SERVER: 'Anthropic failed or is overloaded (5xx, 529 overloaded_error, or an error event in the stream). It is retried up to maxRetries times while no part of the answer has been shown; if it persists, try again later.',
  ORYX_E_LLM_TIMEOUT: 'Anthropic sent nothing for timeoutMs. It is retried up to maxRetries times while no part of the answer has been shown; raise timeoutMs for long thinking before the first token, or stream.',
  ORYX_E_LLM_CONNECTION: 'The connection broke before the answer was complete. It is retried up to maxRetries times while no part of the answer has been shown (once text was shown it is not, and the session keeps what was done); if it persists, check proxies.',
  ORYX_E_LLM_BAD_RESPONSE: 'The answer was not a Messages API response: check that baseURL (or ANTHROPIC_BASE_URL) points to the Anthropic API, without /v1.',
} as const satisfies Partial<Record<LlmErrorCode, string>>;
