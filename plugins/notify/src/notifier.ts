import type { NotifyMessage, NotifyService, SandboxAction, SendResult as ContractSendResult } from '@oryxos/contracts';
import { type PluginContext } from '@oryxos/kernel';
import { isOryxError } from '@oryxos/provider-spec';
import { enforceAction, readEnv } from '@oryxos/plugin-kit';
import { channelInfo, isAddress, parseChannel, type Channel, type ChannelInfo } from './channel.ts';
import { ERROR_CODES, notifyError, type NotifyErrorCode } from './errors.ts';
import type { RetryOptions } from './options.ts';
import type { NotifyStore } from './queries.ts';
import { scrubber } from './secret.ts';
import { deliver } from './smtp.ts';

/** One message to a channel (the contract's `NotifyMessage`). */
export type Message = NotifyMessage;

/** What became of a send (the contract's `SendResult`, its error code one of this plugin's); the `notifications` row `id` says the same. */
export type SendResult = Omit<ContractSendResult, 'error'> & { error?: { code: NotifyErrorCode; message: string; hint: string } };

const iso = () => new Date().toISOString();

/**
 * The `notify` service: channels (from the config, and added at run time in
 * `notify_channels`) and `send`, which passes the sandbox (`smtp host:port`) before every
 * connection, retries temporary failures with backoff, and records every send in
 * `notifications`. Passwords never leave it: not in rows, errors, logs or listings.
 *
 * @example
 * const r = await kernel.service('notify').send({ channel: 'ops', subject: 'Done', body: 'All green.' });
 * if (r.status !== 'sent') console.error(r.error?.code, r.error?.message);
 */
export class Notifier implements NotifyService {
  private readonly configured: Map<string, Channel>;

  constructor(
    private readonly kernel: PluginContext,
    private readonly store: NotifyStore,
    config: readonly Channel[],
    private readonly options: { retry: RetryOptions; timeoutMs: number },
  ) {
    this.configured = new Map(config.map((c) => [c.name, c]));
    // Every password is a secret from the start, masked wherever OryxOS writes (a tool's output
    // that prints the environment, an error, the audit trail), not only once a mail is sent.
    for (const c of config) this.password(c);
  }

  /** The channel's password (from its variable, or as written in the config), registered as a secret. */
  private password(channel: Channel): string | undefined {
    if (!channel.pass) return undefined;
    if ('value' in channel.pass) { this.kernel.secrets.add(channel.pass.value); return channel.pass.value; }
    return readEnv(channel.pass.env, this.kernel.secrets);
  }

  /** Every channel, config ones first; passwords shown only as where they come from. */
  async channels(): Promise<ChannelInfo[]> {
    const runtime = (await this.store.listChannels()).filter((c) => !this.configured.has(c.name));
    return [...this.configured.values(), ...runtime].map(channelInfo);
  }

  async hasChannel(name: string): Promise<boolean> {
    return (await this.find(name)) !== undefined;
  }

  /** Adds a channel at run time (its password only as `passEnv`, the name of a variable). */
  async add(input: unknown): Promise<ChannelInfo> {
    const channel = parseChannel(input, 'runtime');
    if (this.configured.has(channel.name) || !await this.store.insertChannel(channel, iso())) {
      throw notifyError('ORYX_E_NOTIFY_DUPLICATE', `channel "${channel.name}" already exists${this.configured.has(channel.name) ? ' (in oryx.config.ts)' : ''}`);
    }
    return channelInfo(channel);
  }

  /** Removes a channel added at run time. */
  async remove(name: string): Promise<void> {
    if (this.configured.has(name)) throw notifyError('ORYX_E_NOTIFY_CONFIG_CHANNEL', `channel "${name}" is declared in oryx.config.ts; remove it there`);
    if (!await this.store.deleteChannel(name)) throw unknownChannel(name);
  }

  /**
   * Sends one mail and records it. Throws only for an unknown channel; every delivery outcome
   * (sent, failed after retries, denied by the sandbox) is a result and a row.
   */
  async send(message: Message): Promise<SendResult> {
    const channel = await this.find(message.channel);
    if (!channel) throw unknownChannel(message.channel);
    const to = checkMessage(message) ?? channel.to;
    const id = await this.store.begin({
      channel: channel.name, recipients: to, subject: message.subject, origin: message.origin, sessionId: message.sessionId, runId: message.runId, now: iso(),
    });
    const base = { id, channel: channel.name, to };
    let attempts = 0;
    const done = async (result: Omit<SendResult, 'id' | 'channel' | 'to' | 'attempts'>): Promise<SendResult> => {
      await this.store.finish(id, { status: result.status, attempts, errorCode: result.error?.code, error: result.error?.message, messageId: result.messageId, now: iso() });
      return { ...base, attempts, ...result };
    };
    const fail = (status: 'failed' | 'denied', code: NotifyErrorCode, text: string) =>
      done({ status, error: { code, message: text, hint: ERROR_CODES[code] } });

    let pass: string | undefined;
    if (channel.pass) {
      pass = this.password(channel);
      if (!pass) {
        const variable = 'env' in channel.pass ? channel.pass.env : '';
        return fail('failed', 'ORYX_E_NOTIFY_SECRET_MISSING', `channel ${channel.name}: the password variable ${variable} is not set`);
      }
    }
    const scrub = scrubber(channel.user, pass);
    const action: SandboxAction = { kind: 'smtp', host: channel.host, port: channel.port };
    const enforce = message.enforce
      ?? ((a: SandboxAction) => enforceAction(this.kernel, a, { origin: `notify channel ${channel.name}${message.origin ? ` for ${message.origin}` : ''}` }));
    const { attempts: max, baseDelayMs, maxDelayMs } = this.options.retry;
    for (;;) {
      // Every connection passes the sandbox first; a denied one never opens a socket.
      try {
        await enforce(action);
      } catch (error) {
        if (isOryxError(error) && error.code === 'ORYX_E_SANDBOX_DENIED') {
          return fail('denied', 'ORYX_E_NOTIFY_DENIED', `channel ${channel.name}: smtp ${channel.host}:${channel.port} denied by the sandbox: ${String(error.data?.reason ?? error.message)}`);
        }
        throw error;
      }
      attempts++;
      const r = await deliver(channel, pass, {
        subject: message.subject, text: message.body, to, html: message.html, messageId: message.messageId,
        inReplyTo: message.inReplyTo, references: message.references, headers: message.headers,
      }, this.options.timeoutMs);
      if (r.ok) {
        return done({ status: 'sent', messageId: r.messageId, ...(r.rejected.length ? { rejected: r.rejected } : {}) });
      }
      const text = scrub(`channel ${channel.name}: ${r.message}`);
      if (!r.temporary || attempts >= max || message.signal?.aborted) return fail('failed', r.code, attempts > 1 ? `${text} (after ${attempts} attempts)` : text);
      const delay = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempts - 1)) * (0.8 + Math.random() * 0.4);
      this.kernel.log.debug(`${text}; attempt ${attempts + 1} of ${max} in ${Math.round(delay)} ms`);
      if (!await sleep(delay, message.signal)) return fail('failed', r.code, `${text} (gave up after ${attempts} attempts: aborted)`);
    }
  }

  /** Sends a test mail on a channel (`oryx notify test`). */
  test(name: string): Promise<SendResult> {
    return this.send({
      channel: name, origin: 'oryx notify test',
      subject: `[oryx] test of channel ${name}`,
      body: `This is a test mail from OryxOS, sent on channel ${name} at ${iso()}.\nIf you read this, the channel works.\n`,
    });
  }

  private async find(name: string): Promise<Channel | undefined> {
    return this.configured.get(name) ?? await this.store.getChannel(name);
  }
}

/** Headers the transport writes itself: a message may not set them through `headers`. */
const OWN_HEADERS = new Set(['from', 'to', 'cc', 'bcc', 'subject', 'message-id', 'in-reply-to', 'references', 'date', 'sender', 'reply-to', 'content-type', 'content-transfer-encoding', 'mime-version']);

/** The recipients a message names (undefined: the channel's), after checking what a caller may set; ORYX_E_NOTIFY_BAD_MESSAGE names the field. */
function checkMessage(m: NotifyMessage): string[] | undefined {
  const bad = (field: string, why: string) => notifyError('ORYX_E_NOTIFY_BAD_MESSAGE', `message: ${field} ${why}`, { data: { field } });
  const line = (v: string) => !/[\r\n]/.test(v);
  if (m.to !== undefined) {
    if (!m.to.length) throw bad('to', 'is empty: give at least one address, or leave it out to use the channel\'s');
    for (const a of m.to) if (!isAddress(a)) throw bad('to', `${JSON.stringify(a)} is not an email address`);
  }
  for (const [field, value] of [['messageId', m.messageId], ['inReplyTo', m.inReplyTo], ...(m.references ?? []).map((r) => ['references', r])] as const) {
    if (value !== undefined && !/^<[^<>\s]+@[^<>\s]+>$/.test(value)) throw bad(field, `${JSON.stringify(value)} is not a message id (<local@domain>)`);
  }
  for (const [name, value] of Object.entries(m.headers ?? {})) {
    if (!/^[A-Za-z0-9-]+$/.test(name) || OWN_HEADERS.has(name.toLowerCase())) throw bad('headers', `may not set ${JSON.stringify(name)} (the transport sets From, To, Subject, Message-ID and the threading headers itself)`);
    if (!line(value)) throw bad('headers', `${name}: a header value is one line`);
  }
  return m.to;
}

function unknownChannel(name: string) {
  return notifyError('ORYX_E_NOTIFY_UNKNOWN_CHANNEL', `no notify channel named "${name}"`);
}

/** Waits `ms`; false when the signal fired first. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => { signal?.removeEventListener('abort', stop); resolve(true); }, ms);
    const stop = () => { clearTimeout(timer); resolve(false); };
    signal?.addEventListener('abort', stop, { once: true });
  });
}

