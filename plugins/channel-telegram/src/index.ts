/**
 * @oryxos/channel-telegram: agents chat on Telegram. A door that long-polls the Bot API through
 * grammY from a stored offset and handles each update once; a chat is a session, the Telegram
 * user the run's user; answers are streamed by editing the reply, escaped for MarkdownV2 and
 * split when long; approvals are Approve / Deny buttons in the chat whose run asks; users and
 * chats are deny-by-default.
 *
 * @example
 * // oryx.config.ts
 * import telegram from '@oryxos/channel-telegram';
 * export default defineConfig({ plugins: [sqlite(), audit(), telegram({ allow: { users: [123456789] } })] });
 */
import { STAGE, pluginPackage, type Plugin } from '@oryxos/kernel';
import { MIGRATIONS, OWNER } from './migrations.ts';
import { resolveOptions, type ResolvedTelegramOptions, type TelegramOptions } from './options.ts';

export { ERROR_CODES, type TelegramErrorCode } from './errors.ts';
export { resolveOptions, type TelegramOptions, type ResolvedTelegramOptions } from './options.ts';
export { MIGRATIONS, OWNER } from './migrations.ts';
export { toMarkdownV2, splitMessage, MAX_MESSAGE } from './markdown.ts';
export type { UpdateRow, UpdateStatus } from './store.ts';

/**
 * The Telegram channel. Requires the `database` service (its offset and claims); registers the
 * door `telegram`, which a host (`oryx serve`, `oryx web`) starts.
 */
export default function telegram(options: TelegramOptions): Plugin<ResolvedTelegramOptions> {
  const o = resolveOptions(options);
  return {
    ...pluginPackage(import.meta.url),
    name: 'telegram',
    requires: ['database'],
    options: o,
    async setup(ctx) {
      const { TelegramDoor, DOOR } = await import('./door.ts');
      const door = new TelegramDoor(ctx, o);
      ctx.registerDoor({ name: DOOR, start: () => door.start(), stop: (opts) => door.stop(opts), check: (opts) => door.check(opts) });
      ctx.hooks.init.tapPromise(async () => { await ctx.service('database').migrate(OWNER, MIGRATIONS); });
      // A run of this door continued elsewhere (a person approved it from the CLI): its answer goes back to the chat.
      ctx.hooks.afterRun.tapPromise({ stage: STAGE.OBSERVE }, async (result, run) => {
        await door.continued(result, run).catch((e) => ctx.log.warn(`could not deliver the continued run ${run.runId}: ${(e as Error).message}`));
      });
    },
  };
}
