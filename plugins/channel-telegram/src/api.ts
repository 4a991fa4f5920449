import type { Api } from 'grammy';
import type { Logger } from '@oryxos/kernel';
import type { OryxError } from '@oryxos/provider-spec';
import { telegramError } from './errors.ts';

const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve) => {
  if (signal?.aborted) return resolve();
  const timer = setTimeout(done, ms);
  function done() { clearTimeout(timer); signal?.removeEventListener('abort', done); resolve(); }
  signal?.addEventListener('abort', done, { once: true });
});

/**
 * A grammY `Api` client for the bot (grammY loaded on first use), whose every call that gets
 * 429 Too Many Requests waits the `retry_after` the Bot API names and tries again, at most
 * `maxRetries` times and never for longer than `maxRetryAfterMs` at once.
 *
 * @example
 * const api = await botApi(token, { apiRoot: 'https://api.telegram.org', maxRetries: 5, maxRetryAfterMs: 60_000 }, ctx.log);
 * await api.sendMessage(chatId, 'hi');
 */
export async function botApi(token: string, o: { apiRoot: string; maxRetries: number; maxRetryAfterMs: number }, log: Logger): Promise<Api> {
  const { Api } = await import('grammy');
  const api = new Api(token, { apiRoot: o.apiRoot });
  api.config.use(async (prev, method, payload, grammySignal) => {
    const signal = grammySignal as unknown as AbortSignal | undefined;
    for (let attempt = 0; ; attempt++) {
      const res = await prev(method, payload, grammySignal);
      if (res.ok || res.error_code !== 429 || attempt >= o.maxRetries) return res;
      const waitMs = (res.parameters?.retry_after ?? 1) * 1000;
      if (waitMs > o.maxRetryAfterMs) return res;
      log.info(`${method}: 429 Too Many Requests, retrying after ${waitMs} ms (retry ${attempt + 1} of ${o.maxRetries})`);
      await sleep(waitMs, signal);
      if (signal?.aborted) return res;
    }
  });
  return api;
}

/** grammY's own AbortSignal type (its Node build types it with a shim): the platform's signal, as grammY takes it. */
export type GrammySignal = Parameters<Api['getMe']>[0];
export const grammySignal = (signal: AbortSignal) => signal as unknown as GrammySignal;

interface ApiFailure { error_code?: number; description?: string; message?: string; method?: string }

/**
 * What failed, in this package's codes: the token refused (401), another poller (409), a
 * message refused (4xx), or no answer at all. The token is never in the text (grammY redacts it
 * from URLs; the kernel masks it as a secret too).
 *
 * @example
 * apiFailure(e, 'https://api.telegram.org') // ORYX_E_TELEGRAM_AUTH: the Bot API refused the token (401 Unauthorized)
 */
export function apiFailure(error: unknown, apiRoot: string): OryxError {
  const e = (error ?? {}) as ApiFailure;
  const text = e.description ?? e.message ?? String(error);
  if (e.error_code === 401 || e.error_code === 404 && /Not Found/.test(text) && e.method === 'getMe') return telegramError('ORYX_E_TELEGRAM_AUTH', `the Bot API at ${apiRoot} refused the token (${e.error_code} ${text})`, { cause: error });
  if (e.error_code === 409) return telegramError('ORYX_E_TELEGRAM_CONFLICT', `the Bot API says another process polls this bot (${text})`, { cause: error });
  if (typeof e.error_code === 'number') return telegramError('ORYX_E_TELEGRAM_SEND', `${e.method ?? 'a call'}: ${e.error_code} ${text}`, { cause: error });
  return telegramError('ORYX_E_TELEGRAM_CONNECT', `the Bot API at ${apiRoot} did not answer (${text})`, { cause: error });
}
