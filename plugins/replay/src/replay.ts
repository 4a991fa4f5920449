import { OryxError } from '@oryxos/provider-spec';
import { pluginPackage, type Plugin } from '@oryxos/kernel';
import { cassettePath, validateOptions, type ReplayOptions } from './options.ts';
import { recordProvider, replayProvider } from '@oryxos/provider-kit/cassette';

/**
 * Record and replay model traffic. In `record` mode it registers a provider that forwards to
 * `target` and appends each request/response pair to a JSONL cassette; in `replay` mode it
 * answers from the cassette with no network, failing with ORYX_E_REPLAY_DIVERGED when the
 * conversation leaves the recording. Tools still run for real in both modes.
 *
 * @example
 * import { defineConfig } from '@oryxos/kernel';
 * import openai from '@oryxos/plugin-openai';
 * import replay from '@oryxos/plugin-replay';
 * const mode = process.env.RECORD ? 'record' : 'replay';
 * export default defineConfig({
 *   defaultProvider: 'replay',
 *   plugins: [
 *     ...(mode === 'record' ? [openai({ defaultModel: 'gpt-4o-mini' })] : []),
 *     replay({ mode, cassette: 'smoke', target: 'openai' }),
 *   ],
 * });
 */
export default function replay(options: ReplayOptions): Plugin {
  const opts = validateOptions(options);
  const pluginName = opts.name === 'replay' ? 'replay' : `replay:${opts.name}`;
  return {
    ...pluginPackage(import.meta.url),
    name: pluginName,
    options: opts,
    setup(ctx) {
      const settings = {
        name: opts.name, cassette: opts.cassette, file: cassettePath(opts.cassette, ctx.config),
        target: opts.target, defaultModel: opts.defaultModel,
        howToRecord: `set replay({ mode: 'record', cassette: '${opts.cassette}', target: '<provider>' }) and run again`,
      };
      if (opts.mode === 'replay') {
        const provider = replayProvider(settings);
        ctx.registerProvider(provider);
        ctx.hooks.init.tapPromise(() => provider.preload());
        return;
      }
      const target = opts.target!;
      ctx.registerProvider(recordProvider({ ...settings, target }, ctx));
      // Providers are all registered once every setup has run: check the target then.
      ctx.hooks.init.tapPromise(async () => {
        if (!ctx.providerNames.includes(target)) {
          throw new OryxError('ORYX_E_REPLAY_TARGET_MISSING', `replay "${opts.name}" records provider "${target}", which is not enabled`, {
            hint: `Enable the provider named "${target}" in oryx.config.ts (e.g. openai()), or set target to one of: ${ctx.providerNames.filter((n) => n !== opts.name).join(', ') || '(none enabled)'}.`,
          });
        }
      });
    },
  };
}
