/**
 * @oryxos/plugin-ollama: an LLM provider for Ollama.
 *
 * @example
 * import ollama from '@oryxos/plugin-ollama';
 * export default defineConfig({ plugins: [ollama({ defaultModel: 'qwen2.5:7b' })] });
 */
export { default, default as ollama } from './ollama.ts';
export type { OllamaOptions } from './options.ts';
export { ERROR_CODES, LLM_HINTS } from './errors.ts';
export { toolArguments, toOllamaMessages, toOllamaTools, fromResponse } from './mapping.ts';
export { stableCallId } from '@oryxos/provider-kit';
