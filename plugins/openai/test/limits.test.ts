// Time limits and hints that tell the truth, against the loopback OpenAI wire server: the idle
// limit and the per-call cap (the provider kit's wire suite covers the cap on a stream and a
// stream cut after tokens).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROVIDER_CALL_DEFAULTS } from '@oryxos/provider-kit';
import { wireKernel, type ScriptEntry } from '@oryxos/provider-kit/testing';
import { LLM_HINTS } from '../src/errors.ts';
import { resolveSettings, type OpenAIOptions } from '../src/options.ts';
import { openaiDialect } from './helpers/openai-server.ts';

const setup = (script: ScriptEntry[], options: OpenAIOptions = {}) => wireKernel(openaiDialect, script, options as Record<string, unknown>);


test('defaults: a 60 s idle limit and a 180 s cap per call', () => {
  const settings = resolveSettings({}, {});
  assert.is(settings.timeoutMs, 60_000);
  assert.is(settings.callTimeoutMs, 180_000);
  assert.is(settings.callTimeoutMs, PROVIDER_CALL_DEFAULTS.callTimeoutMs);
  assert.is(resolveSettings({ timeoutMs: 5, callTimeoutMs: 7 }, {}).callTimeoutMs, 7);
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
