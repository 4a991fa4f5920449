import { pluginPackage, type Plugin } from '@oryxos/kernel';
import { parseJudge } from './judge.ts';
import { resolveOptions, type EvalOptions } from './options.ts';

/** The name the plugin is enabled under; `oryx eval` reads its options from the config by it. */
export const PLUGIN_NAME = 'eval';

/**
 * Project defaults for `oryx eval`: the provider that judges `llm_rubric` checks and how many
 * cases run at once. `oryx eval` works without it; enable it to configure a judge. At start it
 * checks that the judge's provider is enabled.
 *
 * @example
 * import evals from '@oryxos/plugin-eval';
 * export default defineConfig({ plugins: [openai(), evals({ judge: 'openai:gpt-4o-mini', concurrency: 4 })] });
 */
export default function evals(options: EvalOptions = {}): Plugin {
  const opts = resolveOptions(options);
  return {
    ...pluginPackage(import.meta.url),
    name: PLUGIN_NAME,
    options: opts,
    setup(ctx) {
      const { judge } = opts;
      if (judge) ctx.hooks.init.tapPromise(async () => { parseJudge(judge, ctx.providerNames); });
    },
  };
}

/** The options `evals()` was enabled with in a config, or none. */
export function evalOptionsOf(plugins: readonly Plugin[]): EvalOptions {
  return (plugins.find((p) => p.name === PLUGIN_NAME)?.options as EvalOptions | undefined) ?? {};
}
