// Time limits and hints that tell the truth, against the loopback OpenAI wire server: the idle
// limit and the per-call cap, and a stream cut after tokens were shown (not retried, and said so).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROVIDER_CALL_DEFAULTS, STAGE, type OryxError, type RunEvent } from '@oryxos/kernel';
import { testKernel, type TestKernel } from '@oryxos/kernel/testing';
import openai from '../src/index.ts';
import { LLM_HINTS } from '../src/errors.ts';
import type { OpenAIOptions } from '../src/options.ts';
import { resolveSettings } from '../src/options.ts';
import { chunk, openaiServer, type Reply } from './helpers/openai-server.ts';

async function setup(script: Reply[], options: OpenAIOptions = {}) {
  const server = await openaiServer(script);
  const attempts: { code: string; willRetry: boolean }[] = [];
  const observer = {
    name: 'observer', version: '1.0.0', kernel: '^1',
    setup(k: TestKernel['kernel']) {
      k.hooks.llmError.tapPromise({ name: 'observer', stage: STAGE.OBSERVE }, async (e: OryxError, info) => { attempts.push({ code: e.code, willRetry: info.willRetry }); });
    },
  };
  const t = await testKernel({ plugins: [openai({ baseURL: server.url, apiKey: 'sk-test', defaultModel: 'm', retryBaseDelayMs: 1, ...options }), observer] });
  return { server, attempts, t, async cleanup() { await t.close(); await server.close(); } };
}

const tokensOf = (into: string[]) => (e: RunEvent) => { if (e.type === 'token') into.push(e.text); };

test('defaults: a 60 s idle limit and a 180 s cap per call', () => {
  const settings = resolveSettings({}, {});
  assert.is(settings.timeoutMs, 60_000);
  assert.is(settings.callTimeoutMs, 180_000);
  assert.is(settings.callTimeoutMs, PROVIDER_CALL_DEFAULTS.callTimeoutMs);
  assert.is(resolveSettings({ timeoutMs: 5, callTimeoutMs: 7 }, {}).callTimeoutMs, 7);
});

test('a stream that keeps sending past callTimeoutMs is cut at the cap, not retried, and the error says which limit', async () => {
  const s = await setup([{ trickle: chunk({ content: 'more ' }), everyMs: 20 }, { trickle: chunk({ content: 'never' }), everyMs: 20 }], { timeoutMs: 30_000, callTimeoutMs: 400 });
  try {
    const tokens: string[] = [];
    const r = await s.t.service.process({ agent: 'assistant', message: 'talk', stream: true, onEvent: tokensOf(tokens) });
    assert.is(r.error?.code, 'ORYX_E_LLM_TIMEOUT');
    assert.match(r.error!.message, 'callTimeoutMs (400 ms)');
    assert.match(r.error!.hint!, 'raise callTimeoutMs in openai({ callTimeoutMs })');
    assert.ok(tokens.length > 1, 'it was streaming steadily');
    assert.is(s.server.requests.length, 1, 'not retried');
    assert.equal(s.attempts, [{ code: 'ORYX_E_LLM_TIMEOUT', willRetry: false }]);
    await s.server.closedEarlyOnce;
  } finally { await s.cleanup(); }
});

test('a non-streamed answer whose body never ends is cut at callTimeoutMs (the idle limit ends with the headers)', async () => {
  const s = await setup([{ trickle: ' ', everyMs: 20 }], { timeoutMs: 30_000, callTimeoutMs: 300 });
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'talk' });
    assert.is(r.error?.code, 'ORYX_E_LLM_TIMEOUT');
    assert.match(r.error!.message, 'callTimeoutMs');
    assert.is(s.server.requests.length, 1);
  } finally { await s.cleanup(); }
});

test('an idle server is cut after timeoutMs and retried; the final hint names timeoutMs', async () => {
  const s = await setup([{ hang: true }, { hang: true }], { timeoutMs: 150, callTimeoutMs: 30_000, maxRetries: 1 });
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true });
    assert.is(r.error?.code, 'ORYX_E_LLM_TIMEOUT');
    assert.match(r.error!.message, 'for 150 ms');
    assert.match(r.error!.hint!, 'timeoutMs');
    assert.equal(s.attempts.map((a) => a.willRetry), [true, false]);
  } finally { await s.cleanup(); }
});

test('a stream cut after tokens were shown is not retried, and the hint says so and what the session keeps', async () => {
  const s = await setup([{ sse: [chunk({ role: 'assistant', content: 'Half an ans' })], cut: true }, { sse: [chunk({ content: 'never' })] }]);
  try {
    const tokens: string[] = [];
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true, onEvent: tokensOf(tokens) });
    assert.equal(tokens, ['Half an ans']);
    assert.is(r.error?.code, 'ORYX_E_LLM_CONNECTION');
    assert.match(r.error!.hint!, 'not retried');
    assert.match(r.error!.hint!, 'session keeps');
    assert.not.match(r.error!.hint!, 'retried automatically');
    assert.is(s.server.requests.length, 1);
    const stored = await s.t.kernel.service('sessions').messages(r.sessionId);
    assert.equal(stored.map((m) => m.message.content), ['go'], 'the user message is kept');
  } finally { await s.cleanup(); }
});

test('a connection that breaks before any token, every time: retried, and the final hint says it was', async () => {
  const s = await setup([{ destroy: true }, { destroy: true }], { maxRetries: 1 });
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true });
    assert.is(r.error?.code, 'ORYX_E_LLM_CONNECTION');
    assert.is(r.error!.hint, LLM_HINTS.ORYX_E_LLM_CONNECTION);
    assert.match(r.error!.hint!, 'retried up to maxRetries times while no part of the answer has been shown');
    assert.is(s.server.requests.length, 2);
  } finally { await s.cleanup(); }
});

test.run();
