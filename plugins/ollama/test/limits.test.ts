// Ollama's time limits against the loopback wire server: a first-byte allowance (model loading
// counts), the idle limit between parts, the per-call cap; and a stream cut after tokens.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { STAGE, type OryxError, type RunEvent } from '@oryxos/kernel';
import { testKernel, type TestKernel } from '@oryxos/kernel/testing';
import ollama from '../src/index.ts';
import { resolveSettings, type OllamaOptions } from '../src/options.ts';
import { ollamaServer, part, type Reply } from './helpers/ollama-server.ts';

async function setup(script: Reply[], options: OllamaOptions = {}) {
  const server = await ollamaServer(script);
  const attempts: { code: string; willRetry: boolean }[] = [];
  const observer = {
    name: 'observer', version: '1.0.0', kernel: '^1',
    setup(k: TestKernel['kernel']) {
      k.hooks.llmError.tapPromise({ name: 'observer', stage: STAGE.OBSERVE }, async (e: OryxError, info) => { attempts.push({ code: e.code, willRetry: info.willRetry }); });
    },
  };
  const t = await testKernel({ plugins: [ollama({ host: server.url, defaultModel: 'm', retryBaseDelayMs: 1, ...options }), observer] });
  return { server, attempts, t, async cleanup() { await t.close(); await server.close(); } };
}

const tokensOf = (into: string[]) => (e: RunEvent) => { if (e.type === 'token') into.push(e.text); };

test('defaults: 2 min before the first byte (model loading), 60 s between parts, 5 min per call', () => {
  const s = resolveSettings({}, {});
  assert.equal([s.firstByteTimeoutMs, s.timeoutMs, s.callTimeoutMs], [120_000, 60_000, 300_000]);
  assert.is(resolveSettings({ timeoutMs: 200_000 }, {}).firstByteTimeoutMs, 200_000, 'never shorter than the idle limit');
  assert.is(resolveSettings({ firstByteTimeoutMs: 5 }, {}).firstByteTimeoutMs, 5);
});

test('headers but no part within firstByteTimeoutMs: ORYX_E_LLM_TIMEOUT naming that limit, retried', async () => {
  const s = await setup([{ ndjson: [], hold: true }, { ndjson: [], hold: true }], { firstByteTimeoutMs: 150, timeoutMs: 30_000, maxRetries: 1 });
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true });
    assert.is(r.error?.code, 'ORYX_E_LLM_TIMEOUT');
    assert.match(r.error!.message, 'did not start answering within firstByteTimeoutMs (150 ms)');
    assert.match(r.error!.hint!, 'Loading the model');
    assert.equal(s.attempts.map((a) => a.willRetry), [true, false]);
  } finally { await s.cleanup(); }
});

test('a stream that keeps sending past callTimeoutMs is cut at the cap and not retried', async () => {
  const s = await setup([{ trickle: part('more '), everyMs: 20 }, { trickle: part('never'), everyMs: 20 }], { timeoutMs: 30_000, callTimeoutMs: 400 });
  try {
    const tokens: string[] = [];
    const r = await s.t.service.process({ agent: 'assistant', message: 'talk', stream: true, onEvent: tokensOf(tokens) });
    assert.is(r.error?.code, 'ORYX_E_LLM_TIMEOUT');
    assert.match(r.error!.message, 'callTimeoutMs (400 ms)');
    assert.match(r.error!.hint!, 'raise callTimeoutMs in ollama({ callTimeoutMs })');
    assert.ok(tokens.length > 1, 'it was streaming steadily');
    assert.is(s.server.requests.length, 1);
    assert.equal(s.attempts, [{ code: 'ORYX_E_LLM_TIMEOUT', willRetry: false }]);
  } finally { await s.cleanup(); }
});

test('a non-streamed call whose body never ends is cut at callTimeoutMs', async () => {
  const s = await setup([{ trickle: ' ', everyMs: 20 }], { timeoutMs: 30_000, callTimeoutMs: 300 });
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'talk' });
    assert.is(r.error?.code, 'ORYX_E_LLM_TIMEOUT');
    assert.match(r.error!.message, 'callTimeoutMs');
  } finally { await s.cleanup(); }
});

test('a stream cut after tokens were shown is not retried, and the hint says so', async () => {
  const s = await setup([{ ndjson: [part('Half an ans')], cut: true }, { ndjson: [part('never')] }]);
  try {
    const tokens: string[] = [];
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true, onEvent: tokensOf(tokens) });
    assert.equal(tokens, ['Half an ans']);
    assert.is(r.error?.code, 'ORYX_E_LLM_CONNECTION');
    assert.match(r.error!.hint!, 'not retried');
    assert.match(r.error!.hint!, 'session keeps');
    assert.is(s.server.requests.length, 1);
  } finally { await s.cleanup(); }
});

test.run();
