import { shape as s, validateOptions } from '@oryxos/schema-kit';
import { parseChannel, type Channel, type ChannelInput } from './channel.ts';
import { notifyError } from './errors.ts';

/** How temporary failures (no connection, 4xx answers) are retried. */
export interface RetryOptions {
  /** Attempts in all, the first included. Default 4. */
  attempts: number;
  /** Wait before the second attempt; it doubles each time (±20 %). Default 2000. */
  baseDelayMs: number;
  /** The longest wait between two attempts. Default 60000. */
  maxDelayMs: number;
}

/** Options of {@link notify}. */
export interface NotifyOptions {
  /** SMTP channels; agents (the notify tool) and tasks refer to them by name. */
  channels?: ChannelInput[];
  retry?: Partial<RetryOptions>;
  /** Connection, greeting and socket time limit of one attempt. Default 30000. */
  timeoutMs?: number;
}

export interface ResolvedNotifyOptions {
  channels: Channel[];
  retry: RetryOptions;
  timeoutMs: number;
}

export const optionsShape = s.object({
  channels: s.array(s.unknown()).optional(),
  retry: s.object({
    attempts: s.integer({ min: 1, max: 20 }).optional(), baseDelayMs: s.integer({ min: 0 }).optional(), maxDelayMs: s.integer({ min: 0 }).optional(),
  }).optional(),
  timeoutMs: s.integer({ min: 100 }).optional(),
});

/**
 * Validates the factory's options at once; a channel's problem is ORYX_E_NOTIFY_BAD_CHANNEL
 * naming the channel and the field.
 *
 * @example
 * resolveOptions({ channels: [{ name: 'ops', host: 'smtp.example.com', port: 70000, from: 'a@x.org', to: 'b@x.org' }] }); // throws, naming port
 */
export function resolveOptions(raw: unknown): ResolvedNotifyOptions {
  const o = validateOptions(optionsShape, raw, {
    plugin: 'notify', code: 'ORYX_E_NOTIFY_OPTIONS',
    example: "notify({ channels: [{ name: 'ops', host: 'smtp.example.com', port: 587, user: 'bot', pass: env('SMTP_PASS'), from: 'bot@example.com', to: ['me@example.com'] }] })",
  }) as { channels?: unknown[]; retry?: Partial<RetryOptions>; timeoutMs?: number };
  const channels = (o.channels ?? []).map((c, i) => parseChannel(c, 'config', `notify(): channels[${i}]`));
  const seen = new Set<string>();
  for (const c of channels) {
    if (seen.has(c.name)) throw notifyError('ORYX_E_NOTIFY_DUPLICATE', `notify(): two channels are named "${c.name}"`);
    seen.add(c.name);
  }
  return {
    channels,
    retry: { attempts: o.retry?.attempts ?? 4, baseDelayMs: o.retry?.baseDelayMs ?? 2000, maxDelayMs: o.retry?.maxDelayMs ?? 60_000 },
    timeoutMs: o.timeoutMs ?? 30_000,
  };
}
