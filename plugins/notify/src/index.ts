/**
 * @oryxos/plugin-notify: SMTP channels (nodemailer), a `notify` tool, and the `notify`
 * service the scheduler sends task results through. Every connection passes the sandbox
 * (`smtp host:port`); every send is a `notifications` row.
 *
 * @example
 * import notify, { env } from '@oryxos/plugin-notify';
 * export default defineConfig({ plugins: [sqlite(), notify({ channels: [{ name: 'ops', host: 'smtp.example.com', port: 587, user: 'bot', pass: env('SMTP_PASS'), from: 'bot@example.com', to: ['me@example.com'] }] })] });
 */
import type { Notifier } from './notifier.ts';

export { default, default as notify } from './plugin.ts';
export { ERROR_CODES, type NotifyErrorCode } from './errors.ts';
export { resolveOptions, type NotifyOptions, type ResolvedNotifyOptions, type RetryOptions } from './options.ts';
export { env, isSecretRef, type SecretRef } from './secret.ts';
export { parseChannel, channelInfo, CHANNEL_NAME, type Channel, type ChannelInput, type ChannelInfo, type RuntimeChannelInput } from './channel.ts';
export { Notifier, type Message, type SendResult } from './notifier.ts';
export { MIGRATIONS, OWNER } from './migrations.ts';
export type { NotificationRow, ChannelRow } from './queries.ts';

