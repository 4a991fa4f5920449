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
  providerBadResponseError, LLM_ERROR_CODES, type LlmErrorCode, type ProviderCall, type ProviderFix,
} from './errors.ts';
// A provider's options are checked as every plugin's are (the shapes of @oryxos/schema-kit).
export { shape, validateOptions } from '@oryxos/schema-kit';
export { PROVIDER_CALL_DEFAULTS, PROVIDER_CALL_SHAPE, retryPolicy, type ProviderCallOptions } from './options.ts';
export { callCap, guardedStream, providerCallCapError, type CallCap, type GuardedStreamOptions } from './call-cap.ts';
export { stableCallId } from './call-id.ts';
export { normalizeFinishReason } from './finish.ts';
export { parseToolArguments } from './tool-arguments.ts';
export { chatUsage, type WireUsage } from './chat-usage.ts';
export {
  ChatAnswer, REASONING_FIELDS, type AnswerDelta, type ChatCallMeta, type ChatMessageMeta, type ChatReasoningMeta, type PartialCall, type ReasoningField,
} from './chat-answer.ts';
export { fromChatCompletion } from './chat-completion.ts';
export { ChatChunkAssembler } from './chat-stream.ts';
export {
  ServerReportedError, checkedFetch, isHtml, providerServerError, serverErrorOf, serverErrorOfText, serverReportedIn, type ServerError,
} from './error-body.ts';
export { modelMatcher } from './model-matcher.ts';
export { redactUrl, redactUrls, urlCredentials } from './url.ts';
