import { pluginPackage, type Plugin } from '@oryxos/kernel';
import { resolveSettings, validateOptions, type AnthropicOptions } from './options.ts';
import { createAnthropicProvider } from './provider.ts';

/**
 * An LLM provider for Anthropic's Messages API (Claude) through the official
 * `@anthropic-ai/sdk`: streaming, parallel tool use, thinking round-tripped with its
 * signatures, images, prompt caching breakpoints, usage with cache figures, typed errors.
 * Several instances coexist under different `name`s; agents pick one with `provider:` in AGENT.md.
 *
 * @example
 * import { defineConfig } from '@oryxos/kernel';
 * import anthropic from '@oryxos/plugin-anthropic';
 * export default defineConfig({
 *   plugins: [anthropic({ defaultModel: 'claude-sonnet-4-5', thinking: { budgetTokens: 4096 } })], // ANTHROPIC_API_KEY
 * });
 */
export default function anthropic(options: AnthropicOptions = {}): Plugin {
  const validated = validateOptions(options);
  const name = validated.name ?? 'anthropic';
  return {
    // Unique per instance, so the loader accepts several providers from this package.
    name: name === 'anthropic' ? 'anthropic' : `anthropic:${name}`,
    options: validated,
    ...pluginPackage(import.meta.url),
    setup(ctx) {
      const settings = resolveSettings(validated, process.env);
      // The key (and credential headers for a proxy) are masked wherever OryxOS writes text.
      if (settings.apiKey) ctx.secrets.add(settings.apiKey);
      for (const [header, value] of Object.entries(settings.headers)) if (/auth|key|token|secret|cookie/i.test(header)) ctx.secrets.add(value);
      ctx.registerProvider(createAnthropicProvider(settings));
    },
  };
}
