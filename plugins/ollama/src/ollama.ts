import { STAGE, pluginPackage, type Plugin } from '@oryxos/kernel';
import { urlCredentials } from '@oryxos/provider-kit';
import { ContextWindow } from './context-window.ts';
import { resolveSettings, validateOptions, type OllamaOptions } from './options.ts';
import { createOllamaProvider } from './provider.ts';

/**
 * An LLM provider for a local (or remote) Ollama server through the `ollama` SDK: tools,
 * streaming, usage, typed errors. Ollama's tool calls carry no ids, so stable ones are
 * generated from the conversation.
 *
 * @example
 * import { defineConfig } from '@oryxos/kernel';
 * import ollama from '@oryxos/plugin-ollama';
 * export default defineConfig({
 *   plugins: [ollama({ defaultModel: 'qwen2.5:7b', keepAlive: '30m', modelOptions: { num_ctx: 16384 } })],
 * });
 */
export default function ollama(options: OllamaOptions = {}): Plugin {
  const validated = validateOptions(options);
  const name = validated.name ?? 'ollama';
  return {
    name: name === 'ollama' ? 'ollama' : `ollama:${name}`,
    options: validated,
    ...pluginPackage(import.meta.url),
    setup(ctx) {
      // A password in the host URL (a proxy in front of Ollama) is masked wherever OryxOS writes text.
      for (const credential of urlCredentials(validated.host ?? process.env.OLLAMA_HOST)) ctx.secrets.add(credential);
      const settings = resolveSettings(validated, process.env);
      // Credentials for a proxy in front of Ollama are masked wherever OryxOS writes text.
      for (const [name, value] of Object.entries(settings.headers)) if (/auth|key|token|secret|cookie/i.test(name)) ctx.secrets.add(value);
      // Each call sends num_ctx from the agent's context_tokens (see ContextWindow).
      const window = new ContextWindow(settings);
      ctx.hooks.runStart.tapPromise({ stage: STAGE.OBSERVE }, async (run) => {
        if (run.provider === settings.name) window.remember(run.signal, run.agent.settings.context_tokens);
      });
      ctx.registerProvider(createOllamaProvider(settings, window));
    },
  };
}
