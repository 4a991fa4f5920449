import type { LlmErrorCode } from '@oryxos/provider-kit';

/**
 * Every error code this package throws, with how to fix it. The README lists the same
 * codes; a test keeps the two in step. A failed model call uses the kernel's ORYX_E_LLM_*
 * codes instead, with the hints below.
 */
export const ERROR_CODES = {
  ORYX_E_OLLAMA_OPTIONS: 'Fix the option the message names in ollama({...}) in oryx.config.ts (or OLLAMA_HOST).',
} as const;

/** This provider's hints for the kernel's model-call codes (the key, model and URL hints are built per call). */
export const LLM_HINTS = {
  ORYX_E_LLM_RATE_LIMIT: 'Too many requests (429): retried after retry-after, up to maxRetries times; raise maxRetries or OLLAMA_NUM_PARALLEL.',
  ORYX_E_LLM_SERVER: 'Ollama failed (5xx or an error in the stream). It is retried up to maxRetries times while no part of the answer has been shown; if it persists, read the `ollama serve` logs.',
  ORYX_E_LLM_TIMEOUT: 'Ollama sent nothing for too long. It is retried up to maxRetries times while no part of the answer has been shown; raise firstByteTimeoutMs (before the answer: model loading counts) or timeoutMs (between two parts).',
  ORYX_E_LLM_CONNECTION: 'The connection broke before the answer was complete. It is retried up to maxRetries times while no part of the answer has been shown (once text was shown it is not, and the session keeps what was done); if it persists, read the Ollama logs.',
  ORYX_E_LLM_BAD_RESPONSE: 'The answer was not an Ollama chat response: check that host points to Ollama, not another server.',
} as const satisfies Partial<Record<LlmErrorCode, string>>;
