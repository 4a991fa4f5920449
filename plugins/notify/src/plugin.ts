import { OryxError, type Kernel, type Plugin } from '@oryxos/kernel';
import { MIGRATIONS, OWNER } from './migrations.ts';
import { Notifier } from './notifier.ts';
import { resolveOptions, type NotifyOptions } from './options.ts';
import { NotifyStore } from './queries.ts';
import { notifyTool } from './tool.ts';

/** The plugin's version; a test checks it against package.json. */
export const VERSION = '0.1.0';

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
    name: 'notify',
    version: VERSION,
    kernel: '^1',
    setup(kernel: Kernel) {
      const notifier = new Notifier(kernel, new NotifyStore(() => kernel.service('database')), opts.channels, opts);
      kernel.provide('notify', notifier);
      kernel.registerTool(notifyTool(() => notifier));
      // In init, not setup: every plugin is set up by then, in whatever order the config lists them.
      kernel.hooks.init.tapPromise({ name: 'notify' }, async () => {
        if (!kernel.hasService('database')) {
          throw new OryxError('ORYX_E_SERVICE_MISSING', 'The notify plugin keeps its channels and sends in the "database" service, and no plugin provides it', {
            hint: 'Add sqlite() from @oryxos/plugin-sqlite (or another database plugin) to `plugins` in oryx.config.ts.',
          });
        }
        await kernel.service('database').migrate(OWNER, MIGRATIONS);
      });
    },
  };
}
