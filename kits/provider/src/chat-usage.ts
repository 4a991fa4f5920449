import type { Usage } from '@oryxos/provider-spec';

/** The usage object of a chat-completions answer, in the shapes servers send it. */
export interface WireUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  /** OpenAI, DeepSeek V4, OpenRouter, vLLM with prefix caching. */
  prompt_tokens_details?: { cached_tokens?: number | null; cache_write_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  /** DeepSeek's own name for the cached part. */
  prompt_cache_hit_tokens?: number | null;
  /** Moonshot (Kimi) puts it at the top. */
  cached_tokens?: number | null;
}

const count = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);

/**
 * A chat-completions usage object as the kernel's {@link Usage}. `inputTokens` is
 * `prompt_tokens` (cached tokens included, as every server counts them); the cache figures
 * come from whichever field the server uses (`prompt_tokens_details.cached_tokens`, DeepSeek's
 * `prompt_cache_hit_tokens`, Moonshot's `cached_tokens`) and stay undefined when it sends none.
 *
 * @example
 * chatUsage({ prompt_tokens: 374, completion_tokens: 61, prompt_cache_hit_tokens: 256 })
 * // { inputTokens: 374, outputTokens: 61, cacheReadTokens: 256 }
 */
export function chatUsage(usage: WireUsage | null | undefined): Usage {
  const u = usage ?? {};
  const cacheRead = count(u.prompt_tokens_details?.cached_tokens) ?? count(u.prompt_cache_hit_tokens) ?? count(u.cached_tokens);
  const cacheWrite = count(u.prompt_tokens_details?.cache_write_tokens);
  const reasoning = count(u.completion_tokens_details?.reasoning_tokens);
  return {
    inputTokens: count(u.prompt_tokens) ?? 0,
    outputTokens: count(u.completion_tokens) ?? 0,
    ...(cacheRead !== undefined ? { cacheReadTokens: cacheRead } : {}),
    ...(cacheWrite !== undefined ? { cacheWriteTokens: cacheWrite } : {}),
    ...(reasoning !== undefined ? { reasoningTokens: reasoning } : {}),
  };
}
