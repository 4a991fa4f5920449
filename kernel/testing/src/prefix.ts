/**
 * The prefix check: how much of each request a provider could serve from its prompt cache.
 * Providers cache a request's leading bytes (OpenAI's automatic prefix caching, Anthropic's
 * `cache_control`, vLLM / llama.cpp / Ollama KV reuse), so what matters is the share of request
 * n that request n+1 repeats exactly, from its first byte.
 */
import type { ChatRequest } from '@oryxos/provider-spec';

/**
 * A request as a provider reads it, most stable part first: the tool definitions, then each
 * message, each as JSON in order (the `signal` and the model name left out).
 *
 * @example
 * requestText({ model: 'm', tools: [], messages: [{ role: 'user', content: 'hi' }] })
 * // '[]\n{"role":"user","content":"hi"}'
 */
export function requestText(request: Pick<ChatRequest, 'tools' | 'messages'>): string {
  return [JSON.stringify(request.tools ?? []), ...request.messages.map((m) => JSON.stringify(m))].join('\n');
}

/**
 * For each consecutive pair of texts, the share of the earlier one that is an exact prefix of
 * the later one: 1 when the later starts with the whole earlier text, 0.5 when they part half
 * way. Takes requests (serialized with {@link requestText}) or texts already serialized (a
 * wire body, for a test on a loopback server).
 *
 * @example
 * const llm = scripted([...]);
 * await service.process({ agent: 'assistant', message: 'go' });
 * const kept = prefixKept(llm.requests); // [1, 1, 0.97]
 * assert.ok(kept.every((k) => k >= 0.99), `kept: ${kept}`);
 */
export function prefixKept(requests: readonly (string | Pick<ChatRequest, 'tools' | 'messages'>)[]): number[] {
  const texts = requests.map((r) => (typeof r === 'string' ? r : requestText(r)));
  const kept: number[] = [];
  for (let i = 1; i < texts.length; i++) {
    const [a, b] = [texts[i - 1]!, texts[i]!];
    let n = 0;
    while (n < a.length && a.charCodeAt(n) === b.charCodeAt(n)) n++;
    kept.push(a.length ? n / a.length : 1);
  }
  return kept;
}

/**
 * The pairs of {@link prefixKept} under `threshold` (default 0.99), as `"n→n+1: 0.94"` lines
 * (1-based request numbers), for an assertion message that says where the prefix broke.
 *
 * @example
 * const misses = prefixMisses(llm.requests);
 * assert.equal(misses, [], misses.join('\n'));
 */
export function prefixMisses(requests: readonly (string | Pick<ChatRequest, 'tools' | 'messages'>)[], threshold = 0.99): string[] {
  return prefixKept(requests).flatMap((k, i) => (k < threshold ? [`${i + 1}→${i + 2}: ${k.toFixed(3)}`] : []));
}
