import { STAGE, pluginPackage, type Plugin, type PluginContext } from '@oryxos/kernel';
import { SchedulerEngine } from './engine.ts';
import { MIGRATIONS, OWNER } from './migrations.ts';
import { resolveOptions, type SchedulerOptions } from './options.ts';
import { TaskStore } from './queries.ts';
import { TaskScheduler } from './service.ts';

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
    ...pluginPackage(import.meta.url),
    name: 'scheduler',
    requires: ['database'],
    provides: ['scheduler'],
    options: opts,
    setup(ctx: PluginContext) {
      const store = new TaskStore(() => ctx.service('database'));
      const engine = new SchedulerEngine(ctx, store, opts);
      const service = new TaskScheduler(ctx, store, engine, opts.tasks);
      ctx.provide('scheduler', service);
      // A door: the host (`oryx serve`, `oryx web`, `oryx schedule start`) starts it with the others.
      // Nobody is there to ask during its runs: what needs a person is stored and mailed.
      ctx.registerDoor({
        name: 'scheduler',
        start: async () => {
          await service.start();
          ctx.log.info(`started with ${(await service.list()).length} task(s)`);
        },
        stop: (o) => service.stop(o),
      });

      // In init: the database plugin opens its database and migrates its own tables first.
      ctx.hooks.init.tapPromise(async () => {
        await ctx.service('database').migrate(OWNER, MIGRATIONS);
      });
      ctx.hooks.runStart.tapPromise({ stage: STAGE.GUARD }, async (run) => { engine.noteRun(run); });
      // A high stage sorts last and close taps run in reverse: the engine stops before the database closes.
      ctx.hooks.close.tapPromise({ stage: STAGE.OBSERVE }, async () => { await engine.stop({ graceMs: 0 }); });
    },
  };
}
