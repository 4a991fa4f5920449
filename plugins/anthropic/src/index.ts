/**
 * @oryxos/plugin-anthropic: an LLM provider for Anthropic's Messages API.
 *
 * @example
 * import anthropic from '@oryxos/plugin-anthropic';
 * export default defineConfig({ plugins: [anthropic({ defaultModel: 'claude-sonnet-4-5' })] });
 */
export { default, default as anthropic } from './anthropic.ts';
export type { AnthropicOptions } from './options.ts';
export { ERROR_CODES, LLM_HINTS } from './errors.ts';
export { toAnthropicMessages, toAnthropicTools, type AnthropicReasoningMeta } from './mapping.ts';
export { placeBreakpoints, MAX_BREAKPOINTS } from './cache.ts';
export { anthropicUsage, fromMessage, MessageStreamAssembler } from './decode.ts';
