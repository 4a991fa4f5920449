/**
 * The Telegram door: long polling of the Bot API through grammY from a stored offset, each
 * update claimed by its id before anything else, a chat as a session, the Telegram user as the
 * run's user, answers streamed by editing the reply, approvals as inline buttons in the chat
 * whose run asks.
 */
import { claimLiveness, claimOwnerId } from '@oryxos/plugin-kit';
import type { Api } from 'grammy';
import type { CallbackQuery, Message, Update } from 'grammy/types';
import type { DoorCheck, PluginContext, RunContext, RunEvent, RunResult, StopReport } from '@oryxos/kernel';
import { errorMessage, isOryxError } from '@oryxos/provider-spec';
import { apiFailure, botApi, grammySignal } from './api.ts';
import { telegramError } from './errors.ts';
import { toMarkdownV2, splitMessage } from './markdown.ts';
import type { ResolvedTelegramOptions } from './options.ts';
import { StreamedReply } from './reply-stream.ts';
import { TelegramStore, type UpdateRow } from './store.ts';

/** The door's name: runs it starts say `door: 'telegram'`, sessions it opens `external.door: 'telegram'`. */
export const DOOR = 'telegram';

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  if (signal.aborted) return resolve();
  const timer = setTimeout(done, ms);
  function done() { clearTimeout(timer); signal.removeEventListener('abort', done); resolve(); }
  signal.addEventListener('abort', done, { once: true });
});

const APPROVAL_DATA = /^ap:([0-9a-f-]{8,64}):(y|n)$/;
const COMMAND = /^\/(new|stop|start|help)(@\w+)?(\s|$)/;

/** The session's external id for a chat's conversation: `<chat>` at first, `<chat>#<n>` after the n-th `/new`. */
const externalId = (chatId: number, generation: number) => (generation ? `${chatId}#${generation}` : String(chatId));
const chatOf = (external: string) => Number(external.split('#')[0]);

interface InFlight { controller: AbortController; done: Promise<void> }

export class TelegramDoor {
  readonly owner = claimOwnerId();
  private api?: Api;
  private store?: TelegramStore;
  private readonly inFlight = new Map<number, InFlight>();
  private isLive!: (row: UpdateRow) => boolean;
  private stopping = new AbortController();
  private loop?: Promise<void>;
  private timers: NodeJS.Timeout[] = [];
  /** Runs this door continues itself after a button press: their answers are shown where they run, not by `afterRun`. */
  private readonly own = new Set<string>();

  constructor(private readonly ctx: PluginContext, private readonly o: ResolvedTelegramOptions) {
    const live = claimLiveness(this.owner, (key) => this.inFlight.has(Number(key)), o.leaseMs);
    this.isLive = (row) => live({ key: String(row.update_id), owner: row.owner, heartbeat_at: row.heartbeat_at }, Date.now());
  }

  private get agent(): string { return this.o.agent ?? this.ctx.config.defaultAgent ?? 'assistant'; }

  /** The token, registered as a secret; ORYX_E_TELEGRAM_SECRET_MISSING names the variable. */
  private token(): string {
    const token = process.env[this.o.tokenEnv];
    if (!token) throw telegramError('ORYX_E_TELEGRAM_SECRET_MISSING', `telegram(): the bot token variable ${this.o.tokenEnv} is not set`);
    this.ctx.secrets.add(token);
    return token;
  }

  /** The Bot API client and this bot's store (the bot id from the token; nothing is called). */
  private async client(): Promise<{ api: Api; store: TelegramStore }> {
    if (!this.api) {
      const token = this.token();
      this.api = await botApi(token, this.o, this.ctx.log);
      this.store = new TelegramStore(() => this.ctx.service('database'), token.split(':')[0]!);
    }
    return { api: this.api, store: this.store! };
  }

  /** Checks the token (getMe: a refused token fails the start), takes over what a dead process left, then polls until {@link stop}. */
  async start(): Promise<void> {
    const { api } = await this.client();
    let me;
    try { me = await api.getMe(); } catch (error) { throw apiFailure(error, this.o.apiRoot); }
    if (!this.o.allow.users.length && !this.o.allow.chats.length) this.ctx.log.warn('telegram({ allow: {} }): nobody is allowed, so every message is refused');
    await api.setMyCommands([{ command: 'new', description: 'Start a new conversation' }, { command: 'stop', description: 'Stop the answer being written' }]).catch(() => {});
    this.stopping = new AbortController();
    await this.recover();
    const beat = setInterval(() => { void this.store!.heartbeat([...this.inFlight.keys()], this.owner).catch((e) => this.ctx.log.warn(`could not renew claims: ${errorMessage(e)}`)); }, Math.max(250, this.o.leaseMs / 3));
    const sweep = setInterval(() => { void this.recover().catch((e) => this.ctx.log.warn(`recovery sweep failed: ${errorMessage(e)}`)); }, Math.max(500, this.o.leaseMs / 2));
    beat.unref(); sweep.unref();
    this.timers.push(beat, sweep);
    this.ctx.log.info(`polling as @${me.username} (${me.id})`);
    this.loop = this.poll();
  }

  /** Long polling from the stored offset; each batch claimed, then the offset stored (so a restart is sent nothing twice). */
  private async poll(): Promise<void> {
    const { api, store } = await this.client();
    const { baseDelayMs, maxDelayMs } = this.o.reconnect;
    let delay = baseDelayMs;
    let offset = await store.offset();
    while (!this.stopping.signal.aborted) {
      let updates: Update[];
      try {
        updates = await api.getUpdates({ ...(offset !== undefined ? { offset } : {}), timeout: this.o.pollTimeoutSec, allowed_updates: ['message', 'callback_query'] }, grammySignal(this.stopping.signal));
        delay = baseDelayMs;
      } catch (error) {
        if (this.stopping.signal.aborted) break;
        const e = apiFailure(error, this.o.apiRoot);
        this.ctx.log.warn(`${e.code} ${e.message}${e.hint ? ` (fix: ${e.hint})` : ''}; polling again in ${Math.round(delay)} ms`);
        await sleep(delay * (0.8 + Math.random() * 0.4), this.stopping.signal);
        delay = Math.min(maxDelayMs, delay * 2);
        continue;
      }
      for (const update of updates) await this.take(update);
      if (updates.length) {
        offset = Math.max(...updates.map((u) => u.update_id)) + 1;
        await store.setOffset(offset);
      }
    }
  }

  /** Claims one update; answered in the background once it is ours. */
  private async take(update: Update): Promise<void> {
    const { store } = await this.client();
    const chat = update.message?.chat.id ?? update.callback_query?.message?.chat.id;
    const user = update.message?.from?.id ?? update.callback_query?.from.id;
    const claim = await store.claim({
      updateId: update.update_id, kind: update.message ? 'message' : update.callback_query ? 'callback_query' : 'other', payload: update, owner: this.owner,
      ...(chat !== undefined ? { chatId: chat } : {}), ...(user !== undefined ? { userId: user } : {}),
    });
    if (claim.taken) this.dispatch(claim.row, update);
  }

  /** Claims left open by a process that died: taken over and handled here, from the stored update. */
  private async recover(): Promise<void> {
    const { store } = await this.client();
    if (this.stopping.signal.aborted) return;
    for (const row of await store.open()) {
      if (this.inFlight.has(row.update_id) || this.isLive(row)) continue;
      const mine = await store.takeOver(row, this.owner);
      if (!mine) continue;
      this.ctx.log.info(`taking over update ${row.update_id} (attempt ${mine.attempts}): its process stopped before it was handled`);
      this.dispatch(mine, JSON.parse(mine.payload) as Update);
    }
  }

  private dispatch(row: UpdateRow, update: Update): void {
    const controller = new AbortController();
    const entry: InFlight = { controller, done: Promise.resolve() };
    this.inFlight.set(row.update_id, entry);
    entry.done = (async () => {
      try {
        await this.handle(row, update, controller.signal);
      } catch (error) {
        // The claim stays open: after the lease (or a restart) it is taken over and tried again.
        this.ctx.log.warn(`update ${row.update_id} was not handled: ${isOryxError(error) ? `${error.code} ` : ''}${errorMessage(error)}${isOryxError(error) && error.hint ? ` (fix: ${error.hint})` : ''}`);
      } finally {
        this.inFlight.delete(row.update_id);
      }
    })();
  }

  private async handle(row: UpdateRow, update: Update, signal: AbortSignal): Promise<void> {
    const { store } = await this.client();
    const finish = (status: 'done' | 'refused' | 'ignored' | 'failed', reason?: string) => store.finish(row.update_id, this.owner, status, reason);
    if (row.attempts > this.o.maxAttempts) return finish('failed', `ORYX_E_TELEGRAM_GAVE_UP: tried ${row.attempts - 1} times; each time its process stopped before it was handled`);
    if (update.callback_query) return this.pressed(row, update.callback_query, finish);
    const message = update.message;
    if (!message?.text || !message.from) return finish('ignored', message ? 'not a text message' : 'not a message');
    if (!this.allowed(message.from.id, message.chat.id)) {
      await this.refuse(message.from.id, message.chat.id, `update ${row.update_id}`, true);
      return finish('refused', `user ${message.from.id} in chat ${message.chat.id} is not on telegram({ allow })`);
    }
    const command = COMMAND.exec(message.text)?.[1];
    if (command) return this.command(command, message, row, finish, signal);
    const session = await this.session(message.chat.id);
    await store.note(row.update_id, this.owner, { session_id: session.id });
    const { reply, onEvent } = await this.streamed(message.chat.id, message.message_id);
    let result: RunResult;
    try {
      result = await this.ctx.runs.process({
        agent: session.agent, session: session.id, message: message.text, user: `telegram:${message.from.id}`, door: DOOR, stream: this.o.stream, onEvent, signal,
      });
    } catch (error) {
      if (signal.aborted) return;
      const waiting = isOryxError(error) && error.code === 'ORYX_E_APPROVAL_WAITING';
      await reply.finish(waiting ? 'This conversation waits for your decision on the buttons above; send your message again once it is decided.' : `Your message could not be answered: ${isOryxError(error) ? `${error.code}: ` : ''}${errorMessage(error)}`);
      return finish(waiting ? 'done' : 'failed', isOryxError(error) ? error.code : errorMessage(error));
    }
    await store.note(row.update_id, this.owner, { run_id: result.runId, stop_reason: result.stopReason });
    // Stopped by shutdown: left claimed, so the next process handles it.
    if (result.stopReason === 'aborted' && signal.aborted) return;
    await this.deliver(result, reply, message.chat.id);
    return finish('done');
  }

  /** The chat's current session, created on its first message. */
  private async session(chatId: number) {
    const { store } = await this.client();
    const generation = await store.generation(chatId);
    return this.ctx.service('sessions').findOrCreate({ agent: this.agent, external: { door: DOOR, id: externalId(chatId, generation) }, title: `telegram chat ${chatId}` });
  }

  /** A reply that follows the run's tokens (when streaming), and the event listener that feeds it. */
  private async streamed(chatId: number, replyTo?: number): Promise<{ reply: StreamedReply; onEvent: (e: RunEvent) => void }> {
    const { api } = await this.client();
    const reply = new StreamedReply(api, chatId, { editIntervalMs: this.o.editIntervalMs, ...(replyTo ? { replyTo } : {}) }, this.ctx.log);
    let text = '';
    return {
      reply,
      onEvent: (e) => {
        if (e.type === 'token') { text += e.text; reply.push(text); }
        // A new model call after tool calls starts its text afresh.
        if (e.type === 'tool_call') text = '';
      },
    };
  }

  /** A run's answer in the chat; a run that waits for an approval also gets its Approve / Deny buttons, in this chat only. */
  private async deliver(result: RunResult, reply: StreamedReply, chatId: number): Promise<void> {
    const waiting = result.stopReason === 'suspended' ? result.suspended?.[0] : undefined;
    const approvalId = typeof waiting?.data?.approvalId === 'string' ? waiting.data.approvalId : undefined;
    let text = result.answer;
    if (result.stopReason === 'error') text = `Your message could not be answered: ${result.error?.code ?? 'error'}: ${result.error?.message ?? ''}`;
    else if (waiting) text = `${result.answer ? `${result.answer}\n\n` : ''}A step needs your approval: ${waiting.reason}`;
    else if (result.notice && result.stopReason !== 'final') text = `${result.answer}\n\n(${result.notice})`;
    await reply.finish(text);
    if (!approvalId) return;
    const { api } = await this.client();
    await api.sendMessage(chatId, toMarkdownV2(`Approve this call? (approval ${approvalId.slice(0, 8)})`), {
      parse_mode: 'MarkdownV2',
      reply_markup: { inline_keyboard: [[{ text: 'Approve', callback_data: `ap:${approvalId}:y` }, { text: 'Deny', callback_data: `ap:${approvalId}:n` }]] },
    });
  }

  /** `/new`, `/stop`, `/start`, `/help`. */
  private async command(command: string, message: Message, row: UpdateRow, finish: (s: 'done') => Promise<void>, signal: AbortSignal): Promise<void> {
    const { api, store } = await this.client();
    const say = (text: string) => api.sendMessage(message.chat.id, toMarkdownV2(text), { parse_mode: 'MarkdownV2' }, grammySignal(signal));
    if (command === 'new') {
      const generation = await store.nextGeneration(message.chat.id);
      await say(`Started a new conversation (number ${generation + 1} in this chat). The earlier one is kept.`);
    } else if (command === 'stop') {
      const session = await this.session(message.chat.id);
      const stopped = await this.ctx.runs.abortSession(session.id, 'stopped from telegram');
      await say(stopped ? 'Stopped.' : 'Nothing is being answered now.');
    } else {
      await say('Send me a message and I will answer it. /new starts a new conversation, /stop stops the answer being written.');
    }
    await store.note(row.update_id, this.owner, {});
    return finish('done');
  }

  /** An Approve / Deny press: only from an allowed person, only in the chat whose run asked. */
  private async pressed(row: UpdateRow, cb: CallbackQuery, finish: (s: 'done' | 'refused' | 'ignored', reason?: string) => Promise<void>): Promise<void> {
    const { api } = await this.client();
    const chatId = cb.message?.chat.id;
    const answer = (text: string) => api.answerCallbackQuery(cb.id, { text }).catch(() => {});
    const m = APPROVAL_DATA.exec(cb.data ?? '');
    if (!m || chatId === undefined) { await answer('This button does nothing any more.'); return finish('ignored', 'not an approval button'); }
    if (!this.allowed(cb.from.id, chatId)) {
      await this.refuse(cb.from.id, chatId, `update ${row.update_id}`, false);
      await answer('You may not decide this.');
      return finish('refused', `user ${cb.from.id} in chat ${chatId} is not on telegram({ allow })`);
    }
    if (!this.ctx.hasService('approvals')) { await answer('Approvals are not enabled.'); return finish('ignored', 'no approvals service'); }
    const approval = await this.ctx.service('approvals').get(m[1]!);
    const session = approval && await this.ctx.service('sessions').get(approval.sessionId);
    if (!approval || session?.external?.door !== DOOR || chatOf(session.external.id) !== chatId) {
      await this.refuse(cb.from.id, chatId, `update ${row.update_id}`, false, `approval ${m[1]} is not one of chat ${chatId}`);
      await answer('This button is not for this chat.');
      return finish('refused', `approval ${m[1]} is not one of chat ${chatId}`);
    }
    const by = `telegram:${cb.from.id}`;
    let decided;
    try {
      decided = await this.ctx.service('approvals').decide(approval.id, { decision: m[2] === 'y' ? 'approve' : 'deny', by, ...(m[2] === 'n' ? { reason: 'denied with the Deny button' } : {}) });
    } catch (error) {
      await answer(isOryxError(error) ? error.message.slice(0, 190) : 'Could not decide.');
      return finish('done', isOryxError(error) ? error.code : errorMessage(error));
    }
    await answer(decided.status === 'approved' ? 'Approved' : 'Denied');
    if (cb.message) {
      const who = cb.from.username ? `@${cb.from.username}` : cb.from.first_name;
      await api.editMessageText(chatId, cb.message.message_id, toMarkdownV2(`${decided.status === 'approved' ? 'Approved' : 'Denied'} by ${who}: ${decided.tool}`), { parse_mode: 'MarkdownV2' })
        .catch((e) => this.ctx.log.debug(`could not mark the approval message: ${errorMessage(e)}`));
    }
    this.own.add(decided.runId);
    try {
      const { reply, onEvent } = await this.streamed(chatId);
      const result = await this.ctx.runs.continue(decided.runId, { stream: this.o.stream, onEvent });
      await this.deliver(result, reply, chatId);
    } finally {
      this.own.delete(decided.runId);
    }
    return finish('done');
  }

  private allowed(userId: number, chatId: number): boolean {
    return this.o.allow.users.includes(userId) || this.o.allow.chats.includes(chatId);
  }

  /** Someone not on the allow-list: audited, told `refusal` when there is one (for a message), and nothing else. */
  private async refuse(userId: number, chatId: number, what: string, isMessage: boolean, reason = `user ${userId} in chat ${chatId} is not on telegram({ allow })`): Promise<void> {
    if (this.ctx.hasService('audit')) {
      await this.ctx.service('audit').sandboxEvent({ decision: 'deny', kind: 'door', target: `telegram user ${userId} in chat ${chatId}`, reason, origin: `door telegram, ${what}` })
        .catch((e) => this.ctx.log.warn(`could not audit a refusal: ${errorMessage(e)}`));
    }
    this.ctx.log.info(`refused ${what}: ${reason}`);
    if (isMessage && this.o.refusal) {
      const { api } = await this.client();
      await api.sendMessage(chatId, toMarkdownV2(this.o.refusal), { parse_mode: 'MarkdownV2' }).catch((e) => this.ctx.log.warn(`could not send the refusal: ${errorMessage(e)}`));
    }
  }

  /**
   * A run of this door continued elsewhere once a person decided (`oryx approvals approve`, the
   * console): its answer goes to the chat it came from.
   */
  async continued(result: RunResult, run: RunContext): Promise<void> {
    if (run.door !== DOOR || !run.continued || this.own.has(run.runId) || result.stopReason === 'aborted') return;
    const session = await this.ctx.service('sessions').get(result.sessionId);
    if (session?.external?.door !== DOOR) return;
    const { api } = await this.client();
    const chatId = chatOf(session.external.id);
    for (const piece of splitMessage(result.answer || `(${result.stopReason})`)) await api.sendMessage(chatId, toMarkdownV2(piece), { parse_mode: 'MarkdownV2' });
  }

  /** Stops polling; runs going on get `graceMs`, then are aborted (their updates are taken over by the next process). */
  async stop(options: { graceMs?: number } = {}): Promise<StopReport> {
    this.stopping.abort();
    for (const t of this.timers.splice(0)) clearInterval(t);
    const before = [...this.inFlight.values()];
    let timer: NodeJS.Timeout | undefined;
    const graceUp = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), options.graceMs ?? this.o.graceMs); });
    const late = await Promise.race([Promise.allSettled(before.map((f) => f.done)).then(() => 'done' as const), graceUp]);
    clearTimeout(timer);
    const left = late === 'late' ? [...this.inFlight.values()] : [];
    for (const f of left) f.controller.abort('shutdown');
    await Promise.allSettled(left.map((f) => f.done));
    await this.loop?.catch(() => {});
    return { finished: before.length - left.length, aborted: left.length };
  }

  /** `oryx doctor`: the token (getMe) and the allow-list; the token named, never shown. */
  async check(options: { signal: AbortSignal }): Promise<DoorCheck[]> {
    const lines: DoorCheck[] = [];
    const from = `token from env ${this.o.tokenEnv}`;
    try {
      const { api } = await this.client();
      const me = await api.getMe(grammySignal(options.signal));
      lines.push({ check: 'telegram bot', status: 'ok', detail: `@${me.username} (${me.id}) at ${this.o.apiRoot}, ${from}` });
    } catch (error) {
      const e = isOryxError(error) ? error : apiFailure(error, this.o.apiRoot);
      lines.push({ check: 'telegram bot', status: 'fail', detail: `${e.message} (${from})`, code: e.code, fix: e.hint! });
    }
    const { users, chats } = this.o.allow;
    lines.push(users.length || chats.length
      ? { check: 'telegram allow', status: 'ok', detail: `answers ${users.length} user(s) anywhere and everyone in ${chats.length} chat(s); anyone else is refused${this.o.refusal ? ' with a reply' : ' silently'} and audited` }
      : { check: 'telegram allow', status: 'warn', detail: 'telegram({ allow: {} }): everyone is refused' });
    return lines;
  }
}
