import type { Api } from 'grammy';
import type { Logger } from '@oryxos/kernel';
import { errorMessage } from '@oryxos/provider-spec';
import { splitMessage, toMarkdownV2 } from './markdown.ts';

/**
 * One answer in a chat, shown while the model writes it: the first text is sent as a reply to
 * the person's message, then the message is edited with what has come since, never more often
 * than once per `editIntervalMs` (the final edit included) and never two calls at once, so a
 * fast model cannot run into the Bot API's flood limits. `finish` shows the whole answer, split
 * into as many messages as its length needs.
 *
 * @example
 * const reply = new StreamedReply(api, chatId, { editIntervalMs: 1000, replyTo: message.message_id }, log);
 * reply.push('Hel'); reply.push('Hello');
 * await reply.finish('Hello, world.');
 */
export class StreamedReply {
  private messageId?: number;
  private shown = '';
  private pending = '';
  private last = 0;
  private timer?: NodeJS.Timeout;
  private flight: Promise<void> = Promise.resolve();
  private done = false;

  constructor(private readonly api: Api, private readonly chatId: number, private readonly o: { editIntervalMs: number; replyTo?: number }, private readonly log: Logger) {}

  /** The answer so far (the whole text, not a delta). */
  push(text: string): void {
    this.pending = text;
    if (this.done || this.timer) return;
    const wait = Math.max(0, this.last + this.o.editIntervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flight = this.flight.then(async () => {
        // The call before may have ended after this was scheduled: its interval counts from its end.
        const left = this.last + this.o.editIntervalMs - Date.now();
        if (this.last && left > 0) await new Promise((r) => setTimeout(r, left));
        if (!this.done) await this.show(splitMessage(this.pending)[0]!);
      }).catch((e) => this.log.debug(`a streamed edit failed: ${errorMessage(e)}`));
    }, this.last ? wait : 0);
  }

  /** Shows the whole answer (the last edit waits its turn too); returns the ids of its messages. */
  async finish(text: string): Promise<number[]> {
    this.done = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flight;
    const [first, ...rest] = splitMessage(text.trim() || '(no answer)');
    const wait = this.last + this.o.editIntervalMs - Date.now();
    if (this.messageId !== undefined && first !== this.shown && wait > 0) await new Promise((r) => setTimeout(r, wait));
    await this.show(first!);
    const ids = [this.messageId!];
    for (const piece of rest) ids.push((await this.api.sendMessage(this.chatId, toMarkdownV2(piece), { parse_mode: 'MarkdownV2' })).message_id);
    return ids;
  }

  private async show(text: string): Promise<void> {
    if (!text || text === this.shown) return;
    const body = toMarkdownV2(text);
    if (this.messageId === undefined) {
      const sent = await this.api.sendMessage(this.chatId, body, {
        parse_mode: 'MarkdownV2', ...(this.o.replyTo ? { reply_parameters: { message_id: this.o.replyTo, allow_sending_without_reply: true } } : {}),
      });
      this.messageId = sent.message_id;
    } else {
      await this.api.editMessageText(this.chatId, this.messageId, body, { parse_mode: 'MarkdownV2' });
    }
    this.shown = text;
    this.last = Date.now();
  }
}
