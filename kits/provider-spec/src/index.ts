/**
 * @oryxos/provider-spec: the contract between OryxOS and every LLM provider — messages with
 * parts (text, images, files, reasoning) and per-provider metadata that round-trips, tool calls
 * and specs, model requests and responses, stream events, finish reasons, usage with cache
 * figures, and the one error class. Versioned on its own: a provider depends on this, not on
 * the whole kernel.
 *
 * @example
 * import type { Provider, ChatRequest } from '@oryxos/provider-spec';
 */
export * from './messages.ts';
export * from './provider.ts';
export { OryxError, isOryxError, errorMessage, toOryxError, type OryxErrorOptions } from './errors.ts';
