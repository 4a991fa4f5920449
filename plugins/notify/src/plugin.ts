import { pluginPackage, type Plugin, type PluginContext } from '@oryxos/kernel';
import { MIGRATIONS, OWNER } from './migrations.ts';
import { Notifier } from './notifier.ts';
import { resolveOptions, type NotifyOptions } from './options.ts';
import { NotifyStore } from './queries.ts';
import { notifyTool } from './tool.ts';

/**
 * Email notifications over SMTP (nodemailer, loaded at the first send). Provides the `notify`
 * service (the scheduler sends task results through it) and the `notify` tool; its tables
 * live in the `database` service (migrated at `init`).
 *
 * @example
 * // oryx.config.ts
 * import notify, { env } from '@oryxos/plugin-notify';
 * export default defineConfig({ plugins: [sqlite(), sandbox({ smtp: { allow: ['smtp.example.com:587'] } }), notify({ channels: [
 *   { name: 'ops', host: 'smtp.example.com', port: 587, user: 'bot@example.com', pass: env('SMTP_PASS'), from: 'bot@example.com', to: ['me@example.com'] },
 * ] })] });
 */
export default function notify(options: NotifyOptions = {}): Plugin {
  const opts = resolveOptions(options);
  return {
    ...pluginPackage(import.meta.url),
    name: 'notify',
    requires: ['database'],
    provides: ['notify'],
    options: opts,
    setup(ctx: PluginContext) {
      const notifier = new Notifier(ctx, new NotifyStore(() => ctx.service('database')), opts.channels, opts);
      ctx.provide('notify', notifier);
      ctx.registerTool(notifyTool(() => notifier));
      // In init: the database plugin opens its database and migrates its own tables first.
      ctx.hooks.init.tapPromise(async () => {
        await ctx.service('database').migrate(OWNER, MIGRATIONS);
      });
    },
  };
}
