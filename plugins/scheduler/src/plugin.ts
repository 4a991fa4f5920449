import { OryxError, STAGE, type Kernel, type Plugin } from '@oryxos/kernel';
import { SchedulerEngine } from './engine.ts';
import { MIGRATIONS, OWNER } from './migrations.ts';
import { resolveOptions, type SchedulerOptions } from './options.ts';
import { TaskStore } from './queries.ts';
import { TaskScheduler } from './service.ts';

/** The plugin's version; a test checks it against package.json. */
export const VERSION = '0.1.0';

/**
 * Scheduled agent runs. Provides the `scheduler` service; its tables live in the `database`
 * service (migrated at `init`). It ticks only once `start()` is called: by `oryx schedule
 * start` and `oryx web`, never by `oryx run`, `oryx chat` or the read commands.
 *
 * @example
 * // oryx.config.ts
 * import scheduler from '@oryxos/plugin-scheduler';
 * export default defineConfig({ plugins: [openai(), sqlite(), scheduler({ tasks: [
 *   { name: 'morning-brief', agent: 'assistant', message: 'Summarise what changed yesterday.', cron: '0 8 * * 1-5', timezone: 'Europe/Berlin' },
 * ] })] });
 */
export default function scheduler(options: SchedulerOptions = {}): Plugin {
  const opts = resolveOptions(options);
  return {
    name: 'scheduler',
    version: VERSION,
    kernel: '^1',
    setup(kernel: Kernel) {
      const store = new TaskStore(() => kernel.service('database'));
      const engine = new SchedulerEngine(kernel, store, opts);
      kernel.provide('scheduler', new TaskScheduler(kernel, store, engine, opts.tasks));

      // In init, not setup: every plugin is set up by then, in whatever order the config lists them.
      kernel.hooks.init.tapPromise({ name: 'scheduler' }, async () => {
        if (!kernel.hasService('database')) {
          throw new OryxError('ORYX_E_SERVICE_MISSING', 'The scheduler keeps its tasks in the "database" service, and no plugin provides it', {
            hint: 'Add sqlite() from @oryxos/plugin-sqlite (or another database plugin) to `plugins` in oryx.config.ts.',
          });
        }
        await kernel.service('database').migrate(OWNER, MIGRATIONS);
      });
      kernel.hooks.beforePrompt.tapPromise({ name: 'scheduler', stage: STAGE.GUARD }, async (prompt, run) => {
        engine.noteRun(run);
        return prompt;
      });
      // A high stage sorts last and close taps run in reverse: the engine stops before the database closes.
      kernel.hooks.close.tapPromise({ name: 'scheduler', stage: STAGE.OBSERVE }, async () => { await engine.stop({ graceMs: 0 }); });
    },
  };
}
