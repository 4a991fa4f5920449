// A loopback server speaking the Telegram Bot API's wire protocol, so the real grammY client
// runs against it: the only replaced part, as the model is. Built from the official reference,
// https://core.telegram.org/bots/api :
// - "Making requests": `POST <apiRoot>/bot<token>/<METHOD_NAME>`, parameters as JSON (or form
//   data), the answer a JSON object with `ok`, and `result`, or `error_code`, `description` and
//   `parameters` (`ResponseParameters.retry_after`: "In case of exceeding flood control, the
//   number of seconds left to wait before the request can be repeated").
// - `getUpdates`: `offset` ("Identifier of the first update to be returned … An update is
//   considered confirmed as soon as getUpdates is called with an offset higher than its
//   update_id"), `limit` (1-100, default 100), `timeout` (long polling, seconds),
//   `allowed_updates`; two getUpdates at once end the older with 409 "Conflict: terminated by
//   other getUpdates request; make sure that only one bot instance is running".
// - `sendMessage`: `chat_id`, `text` ("1-4096 characters after entities parsing"),
//   `parse_mode`, `reply_markup` (an `InlineKeyboardMarkup`), `reply_parameters`; returns the
//   sent `Message`. `editMessageText`: `chat_id`, `message_id`, `text`, `parse_mode`,
//   `reply_markup`; an edit to the same text and markup is 400 "Bad Request: message is not
//   modified: …". `answerCallbackQuery`: `callback_query_id`, `text`. `getMe`, `setMyCommands`.
// - "Formatting options", MarkdownV2: "Any character with code between 1 and 126 inclusively can
//   be escaped anywhere with a preceding '\' character"; "Inside pre and code entities, all '`'
//   and '\' characters must be escaped"; "In all other places characters '_', '*', '[', ']',
//   '(', ')', '~', '`', '>', '#', '+', '-', '=', '|', '{', '}', '.', '!' must be escaped with the
//   preceding character '\'". A reserved character left unescaped is 400 "Bad Request: can't
//   parse entities: Character '.' is reserved and must be escaped with the preceding '\'".
//   This server knows the code and pre entities and escapes only (the door sends no other), so
//   it refuses whatever else is unescaped, as Telegram refuses an entity that does not parse.
// - 401 "Unauthorized" for a wrong token.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Call { method: string; params: Record<string, any>; at: number }
export interface SentMessage { message_id: number; chat_id: number; text: string; parse_mode?: string; reply_markup?: any; edits: { text: string; at: number }[] }

const RESERVED = new Set('_*[]()~`>#+-=|{}.!');

/** Renders MarkdownV2 as the user sees it, or throws Telegram's error text. */
export function renderMarkdownV2(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      const next = text[i + 1];
      if (next === undefined || next.charCodeAt(0) > 126) throw new Error("Bad Request: can't parse entities: Character '\\' is reserved and must be escaped with the preceding '\\'");
      out += next;
      i++;
    } else if (c === '`') {
      const fence = text.startsWith('```', i);
      const open = fence ? 3 : 1;
      let j = i + open;
      if (fence) { const nl = text.indexOf('\n', j); if (nl !== -1 && /^[\w+-]*$/.test(text.slice(j, nl))) j = nl + 1; }
      let body = '';
      for (;; j++) {
        if (j >= text.length) throw new Error(`Bad Request: can't parse entities: Can't find end of ${fence ? 'Pre' : 'Code'} entity at byte offset ${i}`);
        if (text[j] === '\\') { body += text[j + 1] ?? ''; j++; continue; }
        if (fence ? text.startsWith('```', j) : text[j] === '`') break;
        body += text[j];
      }
      out += body;
      i = j + open - 1;
    } else if (RESERVED.has(c)) {
      throw new Error(`Bad Request: can't parse entities: Character '${c}' is reserved and must be escaped with the preceding '\\'`);
    } else {
      out += c;
    }
  }
  return out;
}

export interface BotApi {
  url: string;
  token: string;
  calls: Call[];
  /** Every message the bot sent, by id, with its edits. */
  messages: Map<number, SentMessage>;
  /** Queues an update for getUpdates (its update_id is assigned here unless given). */
  push(update: Record<string, any>): number;
  /** A text message from a user in a chat (private when the chat id is the user's). */
  text(from: number, text: string, chat?: number): number;
  /** A press of an inline button. */
  press(from: number, chat: number, messageId: number, data: string): number;
  /** The next `n` calls of `method` answer 429 with this retry_after. */
  floodNext(method: string, n: number, retryAfter: number): void;
  /** The offsets getUpdates was called with, in order. */
  offsets(): (number | undefined)[];
  /** What the user sees in a chat now: each message's current text, in order. */
  chat(chatId: number): SentMessage[];
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<Record<string, any>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (!raw) return {};
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/json')) return JSON.parse(raw);
  if (type.includes('x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(raw));
  if (type.includes('multipart/form-data')) {
    const boundary = /boundary=(.+)$/.exec(type)![1]!;
    const out: Record<string, any> = {};
    for (const part of raw.split(`--${boundary}`)) {
      const m = /name="([^"]+)"\r\n\r\n([\s\S]*?)\r\n$/.exec(part);
      if (m) { try { out[m[1]!] = JSON.parse(m[2]!); } catch { out[m[1]!] = m[2]; } }
    }
    return out;
  }
  return {};
}

/**
 * Starts the server with a bot `@oryx_test_bot` (id 4242) and token `4242:TEST-token`.
 *
 * @example
 * const api = await startBotApi();
 * new Bot(api.token, { client: { apiRoot: api.url } });
 */
export async function startBotApi(): Promise<BotApi> {
  const token = '4242:TEST-token-abcdefghijklmnop';
  const calls: Call[] = [];
  const updates: Record<string, any>[] = [];
  const messages = new Map<number, SentMessage>();
  const floods = new Map<string, { n: number; retryAfter: number }>();
  let nextUpdate = 1000;
  let nextMessage = 1;
  let confirmed = 0;
  let polling: { end(r: unknown): void } | undefined;
  const waiters = new Set<() => void>();
  const wake = () => { for (const w of [...waiters]) w(); };

  const reply = (res: import('node:http').ServerResponse, status: number, payload: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(payload));
  };
  const fail = (code: number, description: string, parameters?: Record<string, unknown>) => ({ status: code, payload: { ok: false, error_code: code, description, ...(parameters ? { parameters } : {}) } });

  async function handle(method: string, p: Record<string, any>): Promise<{ status: number; payload: unknown }> {
    const flood = floods.get(method);
    if (flood && flood.n > 0) {
      flood.n--;
      return fail(429, `Too Many Requests: retry after ${flood.retryAfter}`, { retry_after: flood.retryAfter });
    }
    const ok = (result: unknown) => ({ status: 200, payload: { ok: true, result } });
    const textOf = (t: unknown, mode?: string) => {
      const s = String(t ?? '');
      const shown = mode === 'MarkdownV2' ? renderMarkdownV2(s) : s;
      if (!shown.length) throw new Error('Bad Request: message text is empty');
      if (shown.length > 4096) throw new Error('Bad Request: message is too long');
      return shown;
    };
    try {
      switch (method) {
        case 'getMe': return ok({ id: 4242, is_bot: true, first_name: 'Oryx Test', username: 'oryx_test_bot', can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false });
        case 'deleteWebhook': case 'setMyCommands': return ok(true);
        case 'getUpdates': {
          if (polling) polling.end(fail(409, 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running'));
          const offset = p.offset === undefined ? undefined : Number(p.offset);
          if (offset !== undefined) { confirmed = Math.max(confirmed, offset); for (let i = updates.length - 1; i >= 0; i--) if (updates[i]!.update_id < offset) updates.splice(i, 1); }
          const take = () => updates.filter((u) => u.update_id >= confirmed).slice(0, Math.min(100, Number(p.limit ?? 100)));
          if (!take().length && Number(p.timeout ?? 0) > 0) {
            const result = await new Promise<unknown>((resolve) => {
              const timer = setTimeout(() => done(undefined), Number(p.timeout) * 1000);
              const w = () => { if (take().length) done(undefined); };
              const done = (r: unknown) => { clearTimeout(timer); waiters.delete(w); polling = undefined; resolve(r); };
              polling = { end: done };
              waiters.add(w);
            });
            if (result) return result as { status: number; payload: unknown };
          }
          return ok(take());
        }
        case 'sendMessage': {
          const text = textOf(p.text, p.parse_mode);
          const id = nextMessage++;
          const chat = Number(p.chat_id);
          messages.set(id, { message_id: id, chat_id: chat, text, ...(p.parse_mode ? { parse_mode: p.parse_mode } : {}), ...(p.reply_markup ? { reply_markup: p.reply_markup } : {}), edits: [] });
          return ok({ message_id: id, date: Math.floor(Date.now() / 1000), chat: { id: chat, type: chat > 0 ? 'private' : 'group' }, from: { id: 4242, is_bot: true, first_name: 'Oryx Test' }, text });
        }
        case 'editMessageText': {
          const m = messages.get(Number(p.message_id));
          if (!m || m.chat_id !== Number(p.chat_id)) return fail(400, 'Bad Request: message to edit not found');
          const text = textOf(p.text, p.parse_mode);
          const markup = JSON.stringify(p.reply_markup ?? null);
          if (text === m.text && markup === JSON.stringify(m.reply_markup ?? null)) {
            return fail(400, 'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message');
          }
          m.text = text;
          if (p.reply_markup) m.reply_markup = p.reply_markup; else delete m.reply_markup;
          m.edits.push({ text, at: Date.now() });
          return ok({ message_id: m.message_id, date: Math.floor(Date.now() / 1000), chat: { id: m.chat_id, type: 'private' }, text });
        }
        case 'answerCallbackQuery': case 'sendChatAction': return ok(true);
        default: return fail(404, 'Not Found');
      }
    } catch (error) {
      return fail(400, (error as Error).message);
    }
  }

  const server: Server = createServer(async (req, res) => {
    const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
    const params = await body(req);
    if (!m) return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    if (m[1] !== token) return reply(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    calls.push({ method: m[2]!, params, at: Date.now() });
    const { status, payload } = await handle(m[2]!, params);
    if (!res.destroyed) reply(res, status, payload);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const push = (u: Record<string, any>) => {
    const id = u.update_id ?? nextUpdate++;
    updates.push({ ...u, update_id: id });
    wake();
    return id;
  };
  let nextUserMessage = 100_000;
  return {
    url, token, calls, messages, push,
    text: (from, text, chat = from) => push({
      message: { message_id: nextUserMessage++, date: Math.floor(Date.now() / 1000), chat: { id: chat, type: chat > 0 ? 'private' : 'group' }, from: { id: from, is_bot: false, first_name: `User${from}` }, text,
        ...(text.startsWith('/') ? { entities: [{ type: 'bot_command', offset: 0, length: text.split(/\s/)[0]!.length }] } : {}) },
    }),
    press: (from, chat, messageId, data) => push({
      callback_query: { id: `cb${nextUpdate}`, from: { id: from, is_bot: false, first_name: `User${from}` }, chat_instance: 'ci', data, message: { message_id: messageId, date: 0, chat: { id: chat, type: chat > 0 ? 'private' : 'group' } } },
    }),
    floodNext(method, n, retryAfter) { floods.set(method, { n, retryAfter }); },
    offsets: () => calls.filter((c) => c.method === 'getUpdates').map((c) => (c.params.offset === undefined ? undefined : Number(c.params.offset))),
    chat: (chatId) => [...messages.values()].filter((m) => m.chat_id === chatId),
    async close() {
      polling?.end({ status: 200, payload: { ok: true, result: [] } });
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
