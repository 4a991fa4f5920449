// Ollama's time limits against the loopback wire server: a first-byte allowance (model loading
// counts) and the per-call cap on a body that never ends (the provider kit's wire suite covers
// the idle limit, the cap on a stream and a stream cut after tokens).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { wireKernel, type ScriptEntry } from '@oryxos/provider-kit/testing';
import { resolveSettings, type OllamaOptions } from '../src/options.ts';
import { ollamaDialect } from './helpers/ollama-server.ts';

const setup = (script: ScriptEntry[], options: OllamaOptions = {}) => wireKernel(ollamaDialect, script, options as Record<string, unknown>);


test('defaults: 2 min before the first byte (model loading), 60 s between parts, 5 min per call', () => {
  const s = resolveSettings({}, {});
  assert.equal([s.firstByteTimeoutMs, s.timeoutMs, s.callTimeoutMs], [120_000, 60_000, 300_000]);
  assert.is(resolveSettings({ timeoutMs: 200_000 }, {}).firstByteTimeoutMs, 200_000, 'never shorter than the idle limit');
  assert.is(resolveSettings({ firstByteTimeoutMs: 5 }, {}).firstByteTimeoutMs, 5);
});

test('headers but no part within firstByteTimeoutMs: ORYX_E_LLM_TIMEOUT naming that limit, retried', async () => {
  const s = await setup([{ events: [], hold: true }, { events: [], hold: true }], { firstByteTimeoutMs: 150, timeoutMs: 30_000, maxRetries: 1 });
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true });
    assert.is(r.error?.code, 'ORYX_E_LLM_TIMEOUT');
    assert.match(r.error!.message, 'did not start answering within firstByteTimeoutMs (150 ms)');
    assert.match(r.error!.hint!, 'Loading the model');
    assert.equal(s.attempts.map((a) => a.willRetry), [true, false]);
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

test.run();
