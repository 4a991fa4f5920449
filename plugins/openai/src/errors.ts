import type { LlmErrorCode } from '@oryxos/provider-kit';

/**
 * Every error code this package throws, with how to fix it. The README lists the same
 * codes; a test keeps the two in step. A failed model call uses the kernel's ORYX_E_LLM_*
 * codes instead, with the hints below.
 */
export const ERROR_CODES = {
  ORYX_E_OPENAI_OPTIONS: 'Fix the option the message names in openai({...}) in oryx.config.ts.',
  ORYX_E_OPENAI_NO_API_KEY: 'Set OPENAI_API_KEY, or pass apiKey to openai(); for a local server that needs no key, set baseURL.',
} as const;

/** This provider's hints for the kernel's model-call codes (the key, model and URL hints are built per call). */
export const LLM_HINTS = {
  ORYX_E_LLM_RATE_LIMIT: 'Rate limited (429): retried after retry-after, up to maxRetries times; raise maxRetries or lower the request rate. Out of quota is final: check billing.',
  ORYX_E_LLM_SERVER: 'The server failed (5xx or an error in the stream). It is retried up to maxRetries times while no part of the answer has been shown; as the final error it means the service is down or overloaded: try again later.',
  ORYX_E_LLM_TIMEOUT: 'The server sent nothing for timeoutMs. It is retried up to maxRetries times while no part of the answer has been shown; raise timeoutMs for models that take long before their first token.',
  ORYX_E_LLM_CONNECTION: 'The connection broke before the answer was complete. It is retried up to maxRetries times while no part of the answer has been shown (once text was shown it is not, and the session keeps what was done); if it persists, check proxies and the server logs.',
  ORYX_E_LLM_BAD_RESPONSE: 'The answer was not a chat completion: check that baseURL points to an OpenAI-compatible API.',
} as const satisfies Partial<Record<LlmErrorCode, string>>;
