/**
 * @oryxos/provider-kit: what every LLM provider plugin shares, so a new provider classifies
 * failures, reads its timeout and retry options and caps a call exactly as the others do.
 * Its wire-test suite (`@oryxos/provider-kit/testing`) gives a new provider the same tests.
 *
 * @example
 * import { PROVIDER_CALL_SHAPE, providerStatusError, retryPolicy } from '@oryxos/provider-kit';
 */
export {
  causeChain, retryAfterMs, providerLabel, providerAbortError, providerTimeoutError, providerConnectionError, providerStatusError,
  providerBadResponseError, type LlmErrorCode, type ProviderCall, type ProviderFix,
} from './errors.ts';
export { PROVIDER_CALL_DEFAULTS, PROVIDER_CALL_SCHEMA, PROVIDER_CALL_SHAPE, retryPolicy, type ProviderCallOptions } from './options.ts';
export { callCap, providerCallCapError, type CallCap } from './call-cap.ts';
export { stableCallId } from './call-id.ts';
export { redactUrl, redactUrls, urlCredentials } from './url.ts';
