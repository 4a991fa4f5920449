/**
 * @oryxos/plugin-openai: an LLM provider for OpenAI-compatible endpoints.
 *
 * @example
 * import openai from '@oryxos/plugin-openai';
 * export default defineConfig({ plugins: [openai({ defaultModel: 'gpt-4o-mini' })] });
 */
export { default, default as openai } from './openai.ts';
export type { OpenAIOptions } from './options.ts';
export { ERROR_CODES, LLM_HINTS } from './errors.ts';
export { parseToolArguments, toChatMessages, toTools, fromCompletion, type WireOptions } from './mapping.ts';
export { echoFields, type ReasoningEcho } from './echo.ts';
export { ChatChunkAssembler as ChunkAssembler } from '@oryxos/provider-kit';
