// What the Telegram tests share: a kernel with the real sqlite, audit and telegram plugins, the
// real grammY client talking to the loopback Bot API server (test/bot-api.ts); only the model
// is scripted (or streams a fixed text slowly, for the edits).
import type { Plugin, RunContext } from '@oryxos/kernel';
import { definePlugin } from '@oryxos/kernel';
import { scripted, testKernel, type TestAgent, type TestKernel } from '@oryxos/kernel/testing';
import type { ChatRequest, ChatResponse, Provider, StreamEvent } from '@oryxos/provider-spec';
import audit from '@oryxos/plugin-audit';
import sqlite from '@oryxos/plugin-sqlite';
import telegram, { type TelegramOptions, type UpdateRow } from '../src/index.ts';
import { startBotApi, type BotApi } from './bot-api.ts';

export const TOKEN_ENV = 'ORYX_TEST_TELEGRAM_TOKEN';
export const ALICE = 111;
export const BOB = 222;
export const MALLORY = 999;

export const lastUser = (req: ChatRequest) => [...req.messages].reverse().find((m) => m.role === 'user')?.content ?? '';

/** A model that answers `Echo: <message>`. */
export const echoing = (n = 20) => scripted(Array.from({ length: n }, () => (req: ChatRequest) => ({ text: `Echo: ${lastUser(req)}` })));

/** A provider that streams `text` a word every `tokenMs` (the model writing slowly). */
export function slowWriter(text: string, tokenMs: number): Plugin {
  const response = (model: string): ChatResponse => ({ message: { role: 'assistant', content: text }, usage: { inputTokens: 10, outputTokens: 10 }, finishReason: 'stop', model });
  const provider: Provider = {
    name: 'slow', defaultModel: 'slow-model',
    async chat(req) { return response(req.model); },
    async *stream(req): AsyncIterable<StreamEvent> {
      for (const piece of text.match(/\S+\s*/g) ?? []) {
        await new Promise((r) => setTimeout(r, tokenMs));
        if (req.signal?.aborted) throw new Error('aborted');
        yield { type: 'text', delta: piece };
      }
      yield { type: 'done', response: response(req.model) };
    },
  };
  return { name: 'provider-slow', version: '1.0.0', kernel: '^1', setup(ctx) { ctx.registerProvider(provider); } };
}

/** Records the user, door and session of every run. */
export function runWatch(): Plugin & { runs: Pick<RunContext, 'user' | 'door' | 'sessionId'>[] } {
  const runs: Pick<RunContext, 'user' | 'door' | 'sessionId'>[] = [];
  return Object.assign(definePlugin({ name: 'run-watch', hooks: { async runStart(run) { runs.push({ user: run.user, door: run.door, sessionId: run.sessionId }); } } }), { runs });
}

export interface Rig { t: TestKernel; api: BotApi; rows(): Promise<UpdateRow[]>; close(options?: { keepApi?: boolean }): Promise<void> }

/** A kernel with the telegram door started against `api` (a new Bot API server unless given). */
export async function rig(options: { model?: Plugin; plugins?: Plugin[]; telegram?: Partial<TelegramOptions>; agents?: Record<string, TestAgent>; api?: BotApi; dir?: string } = {}): Promise<Rig> {
  const api = options.api ?? await startBotApi();
  process.env[TOKEN_ENV] = api.token;
  const t = await testKernel({
    plugins: [
      options.model ?? echoing(), sqlite(), audit(),
      telegram({ tokenEnv: TOKEN_ENV, apiRoot: api.url, allow: { users: [ALICE, BOB] }, pollTimeoutSec: 1, editIntervalMs: 200, leaseMs: 2000, reconnect: { baseDelayMs: 50, maxDelayMs: 200 }, ...options.telegram }),
      ...(options.plugins ?? []),
    ],
    ...(options.agents ? { agents: options.agents } : {}),
    ...(options.dir ? { dir: options.dir } : {}),
  });
  await t.kernel.startDoors(['telegram']);
  return {
    t, api,
    rows: () => t.kernel.service('database').query<UpdateRow>('SELECT * FROM telegram_updates ORDER BY update_id'),
    async close({ keepApi = false } = {}) {
      await t.close();
      if (!keepApi) await api.close();
    },
  };
}

/** Waits until `check` passes (polling), or fails naming what it waited for. */
export async function until<T>(check: () => Promise<T | undefined | false> | T | undefined | false, ms = 10_000, what = 'the condition'): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
