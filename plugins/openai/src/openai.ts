import { pluginPackage, type Plugin } from '@oryxos/kernel';
import { urlCredentials } from '@oryxos/provider-kit';
import { validateOptions, resolveSettings, type OpenAIOptions } from './options.ts';
import { createOpenAIProvider } from './provider.ts';

/**
 * An LLM provider for any OpenAI-compatible chat-completions endpoint (OpenAI, DeepSeek,
 * DashScope compatible mode, vLLM, LM Studio) through the `openai` SDK. Several instances
 * coexist under different `name`s; agents pick one with `provider:` in AGENT.md.
 *
 * @example
 * import { defineConfig } from '@oryxos/kernel';
 * import openai from '@oryxos/plugin-openai';
 * export default defineConfig({
 *   plugins: [
 *     openai({ defaultModel: 'gpt-4o-mini' }), // OPENAI_API_KEY, OPENAI_BASE_URL
 *     openai({ name: 'local', baseURL: 'http://127.0.0.1:1234/v1', defaultModel: 'qwen2.5-7b-instruct' }),
 *   ],
 * });
 */
export default function openai(options: OpenAIOptions = {}): Plugin {
  const validated = validateOptions(options);
  const name = validated.name ?? 'openai';
  return {
    // Unique per instance, so the loader accepts several providers from this package.
    name: name === 'openai' ? 'openai' : `openai:${name}`,
    options: validated,
    ...pluginPackage(import.meta.url),
    setup(ctx) {
      const settings = resolveSettings(validated, process.env);
      // The key (and credential headers for a proxy, and a password in the base URL) are masked wherever OryxOS writes text.
      ctx.secrets.add(settings.apiKey);
      for (const credential of urlCredentials(settings.baseURL)) ctx.secrets.add(credential);
      for (const [name, value] of Object.entries(settings.headers)) if (/auth|key|token|secret|cookie/i.test(name)) ctx.secrets.add(value);
      ctx.registerProvider(createOpenAIProvider(settings));
    },
  };
}
