/**
 * @oryxos/channel-email: agents answer mail. A door that reads an IMAP mailbox (IDLE, reconnect
 * with backoff), answers each mail once — by its Message-ID, across restarts and processes on
 * one database — in the session of its thread, for its sender (`run.user`), and replies
 * threaded over SMTP through a notify channel. Senders are deny-by-default.
 *
 * @example
 * // oryx.config.ts
 * import email from '@oryxos/channel-email';
 * export default defineConfig({ plugins: [sqlite(), audit(), sandbox({ smtp: { allow: ['smtp.example.com:587'] } }), notify({ channels: [bot] }),
 *   email({ imap: { host: 'imap.example.com', user: 'bot@example.com', passEnv: 'IMAP_PASS' }, smtp: 'bot', allow: ['*@example.com'] })] });
 */
import { STAGE, pluginPackage, type Plugin } from '@oryxos/kernel';
import { resolveOptions, type EmailOptions, type ResolvedEmailOptions } from './options.ts';
import { MIGRATIONS, OWNER } from './migrations.ts';

export { ERROR_CODES, type EmailErrorCode } from './errors.ts';
export { resolveOptions, type EmailOptions, type ResolvedEmailOptions, type ImapTls } from './options.ts';
export { MIGRATIONS, OWNER } from './migrations.ts';
export { allowed, ignoreReason, agentMessage, threadOf, type IncomingMail, type Attachment } from './mail.ts';
export { buildReply, type Reply } from './reply.ts';
export type { MailRow, MailStatus } from './claims.ts';

/**
 * The email channel. Requires the `database` (its claims) and `notify` (its replies) services;
 * registers the door `email`, which a host (`oryx serve`, `oryx web`) starts.
 */
export default function email(options: EmailOptions): Plugin<ResolvedEmailOptions> {
  const o = resolveOptions(options);
  return {
    ...pluginPackage(import.meta.url),
    name: 'email',
    requires: ['database', 'notify'],
    options: o,
    async setup(ctx) {
      const { EmailDoor, DOOR } = await import('./door.ts');
      const door = new EmailDoor(ctx, o);
      ctx.registerDoor({ name: DOOR, start: () => door.start(), stop: (opts) => door.stop(opts), check: (opts) => door.check(opts) });
      ctx.hooks.init.tapPromise(async () => { await ctx.service('database').migrate(OWNER, MIGRATIONS); });
      // A run of this door continued elsewhere (a person approved it from the CLI): its answer goes back to the thread.
      ctx.hooks.afterRun.tapPromise({ stage: STAGE.OBSERVE }, async (result, run) => {
        await door.continued(result, run).catch((e) => ctx.log.warn(`could not deliver the continued run ${run.runId}: ${(e as Error).message}`));
      });
    },
  };
}
