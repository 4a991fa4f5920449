import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OryxError } from '@oryxos/provider-spec';
import type { Plugin, RunContext } from '@oryxos/kernel';
import { scripted, testKernel } from '@oryxos/kernel/testing';

test('the kernel owns one AgentService: every door gets the same instance', async () => {
  const t = await testKernel({ plugins: [scripted([])] });
  assert.ok(t.kernel.runs === t.kernel.runs, 'kernel.runs is stable');
  assert.ok(t.service === t.kernel.runs, 'testKernel hands out the kernel\'s own service');
  await t.close();
});

test('abortSession stops the running run and a queued one, and resolves after both ended', async () => {
  const llm = scripted([{ text: 'first' }, { text: 'never', delayMs: 10_000 }, { text: 'never either' }]);
  const t = await testKernel({ plugins: [llm] });
  const first = await t.service.process({ agent: 'assistant', message: 'one' });
  const session = first.sessionId;
  const running = t.service.process({ agent: 'assistant', session, message: 'two' });
  const queued = t.service.process({ agent: 'assistant', session, message: 'three' });
  while (llm.requests.length < 2) await new Promise((r) => setTimeout(r, 5));
  assert.ok(t.service.isRunning(session));
  const aborted = await t.service.abortSession(session);
  assert.is(aborted, 2, 'both the running and the queued run were aborted');
  assert.is(t.service.isRunning(session), false, 'nothing runs once abortSession resolved');
  const [r2, r3] = await Promise.all([running, queued]);
  assert.is(r2.stopReason, 'aborted');
  assert.is(r3.stopReason, 'aborted');
  assert.is(r3.iterations, 0, 'the queued run never started');
  const stored = await t.kernel.service('sessions').messages(session);
  assert.equal(stored.map((m) => m.message.content), ['one', 'first', 'two'], 'the queued run wrote nothing');
  assert.is(await t.service.abortSession(session), 0, 'nothing left to abort');
  await t.close();
});

test('the run context carries the user the run acts for', async () => {
  const seen: (string | undefined)[] = [];
  const spy: Plugin = {
    name: 'spy', version: '1.0.0', kernel: '^1',
    setup(k) { k.hooks.afterRun.tapPromise(async (_r, run: RunContext) => { seen.push(run.user); }); },
  };
  const t = await testKernel({ plugins: [scripted([{ text: 'a' }, { text: 'b' }]), spy] });
  await t.service.process({ agent: 'assistant', message: 'hi', user: 'alice' });
  await t.service.process({ agent: 'assistant', message: 'hi' });
  assert.equal(seen, ['alice', undefined]);
  await t.close();
});

test('the run context carries its origin from runStart on, and a sub-agent\'s run does not inherit it', async () => {
  const seen: unknown[] = [];
  const spy: Plugin = {
    name: 'spy', version: '1.0.0', kernel: '^1',
    setup(k) { k.hooks.runStart.tapPromise(async (run: RunContext) => { seen.push(run.origin); }); },
  };
  const t = await testKernel({ plugins: [scripted([{ text: 'a' }, { text: 'b' }]), spy] });
  const origin = { name: 'POST /api/sessions/:id/messages', startedAt: 1, attributes: { 'http.request.method': 'POST' }, carrier: { traceparent: '00-x' } };
  await t.service.process({ agent: 'assistant', message: 'hi', origin });
  await t.service.process({ agent: 'assistant', message: 'hi' });
  assert.equal(seen, [origin, undefined]);
  await t.close();
});

test('a stream cut off after tokens were shown is not retried, and the hint says so', async () => {
  const cut = new OryxError('ORYX_E_LLM_CONNECTION', 'the connection broke', { retryable: true });
  let calls = 0;
  const provider: Plugin = {
    name: 'cutter', version: '1.0.0', kernel: '^1',
    setup(k) {
      k.registerProvider({
        name: 'cutter', defaultModel: 'm',
        async chat() { throw new Error('not used'); },
        async *stream() { calls++; yield { type: 'text', delta: 'partial ' }; throw cut; },
      });
    },
  };
  const t = await testKernel({ plugins: [provider] });
  const r = await t.service.process({ agent: 'assistant', message: 'hi', stream: true });
  assert.is(calls, 1, 'not retried once tokens were out');
  assert.is(r.stopReason, 'error');
  assert.is(r.error?.code, 'ORYX_E_LLM_CONNECTION');
  assert.match(r.error?.hint ?? '', 'not retried');
  assert.match(r.error?.hint ?? '', 'session keeps');
  await t.close();
});

test('a run can use another provider or model than its agent\'s; another provider does not inherit the agent\'s model', async () => {
  const a = scripted([{ text: 'from a' }, { text: 'from a again' }], { name: 'a' });
  const b = scripted([{ text: 'from b' }, { text: 'from b again' }], { name: 'b' });
  const t = await testKernel({ plugins: [a, b], agents: { assistant: { provider: 'a', model: 'a-model', tools: [] } } });
  try {
    assert.is((await t.service.process({ agent: 'assistant', message: '1', model: 'other-model' })).answer, 'from a');
    assert.is(a.requests[0]!.model, 'other-model');
    assert.is((await t.service.process({ agent: 'assistant', message: '2', provider: 'b' })).answer, 'from b');
    assert.is(b.requests[0]!.model, 'scripted-model', 'the provider\'s own default, not a-model');
    assert.is((await t.service.process({ agent: 'assistant', message: '3', provider: 'b', model: 'b-big' })).answer, 'from b again');
    assert.is(b.requests[1]!.model, 'b-big');
    assert.is((await t.service.process({ agent: 'assistant', message: '4' })).answer, 'from a again');
    assert.is(a.requests[1]!.model, 'a-model');
    const e = await t.service.process({ agent: 'assistant', message: '5', provider: 'nope' }).then(() => undefined, (error) => error);
    assert.is(e?.code, 'ORYX_E_PROVIDER_NOT_FOUND');
  } finally {
    await t.close();
  }
});

test.run();
