import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunEvent } from '@oryxos/kernel';
import { providerWireSuite, wireKernel, type ScriptEntry } from '@oryxos/provider-kit/testing';
import type { OllamaOptions } from '../src/options.ts';
import { chatResponse, donePart, ollamaDialect, part } from './helpers/ollama-server.ts';

/** A kernel with the ollama plugin pointed at a loopback server, an echo tool, and a log of failed attempts. */
const setup = (script: ScriptEntry[], options: OllamaOptions = {}) => wireKernel(ollamaDialect, script, options as Record<string, unknown>);

// The tests every provider passes (errors, retries, aborts, time limits) come from the provider kit.
providerWireSuite(test, ollamaDialect);

const echo = (text: string) => ({ name: 'echo', args: { text } });

test('tool calls get stable ids and round-trip over several iterations, usage summed', async () => {
  const script = (): ScriptEntry[] => [
    { json: chatResponse({ toolCalls: [echo('one')], usage: [11, 2] }) },
    { json: chatResponse({ content: 'thinking', toolCalls: [echo('two')], usage: [20, 3] }) },
    { json: chatResponse({ content: 'done', usage: [30, 4] }) },
  ];
  const idsPerRun: string[][] = [];
  for (let run = 0; run < 2; run++) {
    const s = await setup(script(), { keepAlive: '10m', modelOptions: { num_ctx: 8192 } });
    try {
      const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
      assert.is(r.answer, 'done');
      assert.is(r.iterations, 3);
      assert.equal(r.usage, { inputTokens: 61, outputTokens: 9 });
      assert.equal(s.echo.calls, [{ text: 'one' }, { text: 'two' }]);
      const first = s.server.requests[0]!;
      assert.is(first.path, '/api/chat');
      assert.is(first.body.stream, false);
      assert.is(first.body.keep_alive, '10m');
      assert.equal(first.body.options, { num_ctx: 8192 });
      assert.equal(first.body.tools[0].function.name, 'echo');
      assert.equal(first.body.tools[0].function.parameters.required, ['text']);
      assert.equal(s.server.requests[2]!.body.messages.slice(1), [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '', tool_calls: [{ function: { name: 'echo', arguments: { text: 'one' } } }] },
        { role: 'tool', content: 'echo: one', tool_name: 'echo' },
        { role: 'assistant', content: 'thinking', tool_calls: [{ function: { name: 'echo', arguments: { text: 'two' } } }] },
        { role: 'tool', content: 'echo: two', tool_name: 'echo' },
      ]);
      const stored = (await s.t.kernel.service('sessions').messages(r.sessionId)).map((m) => m.message);
      const ids = stored.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []));
      const resultIds = stored.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : []));
      assert.is(ids.length, 2);
      assert.ok(ids.every((id) => /^call_[0-9a-f]{24}$/.test(id)));
      assert.is.not(ids[0], ids[1]);
      assert.equal(resultIds, ids, 'each result is paired with its call');
      idsPerRun.push(ids);
    } finally { await s.cleanup(); }
  }
  assert.equal(idsPerRun[0], idsPerRun[1], 'the same conversation gives the same ids');
});

test('several tool calls in one response: distinct ids, results in call order with tool_name', async () => {
  const s = await setup([
    { json: chatResponse({ toolCalls: [echo('x'), echo('x'), echo('y')] }) },
    { json: chatResponse({ content: 'ok' }) },
  ]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.answer, 'ok');
    assert.equal(s.echo.calls, [{ text: 'x' }, { text: 'x' }, { text: 'y' }]);
    const sent = s.server.requests[1]!.body.messages.filter((m: any) => m.role === 'tool');
    assert.equal(sent, [
      { role: 'tool', content: 'echo: x', tool_name: 'echo' },
      { role: 'tool', content: 'echo: x', tool_name: 'echo' },
      { role: 'tool', content: 'echo: y', tool_name: 'echo' },
    ]);
    const stored = (await s.t.kernel.service('sessions').messages(r.sessionId)).map((m) => m.message);
    const ids = stored.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []));
    assert.is(new Set(ids).size, 3, 'identical calls still get distinct ids');
  } finally { await s.cleanup(); }
});

test('streaming: text deltas as tokens, tool calls from the stream, usage from the final part', async () => {
  const s = await setup([
    { events: [part('Let me '), part('check.'), part('', [echo('alpha'), echo('beta')]), donePart([40, 12])] },
    { events: [part('All '), part('done.'), donePart([50, 5])] },
  ]);
  try {
    const events: RunEvent[] = [];
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true, onEvent: (e) => events.push(e) });
    assert.is(r.answer, 'All done.');
    assert.equal(r.usage, { inputTokens: 90, outputTokens: 17 });
    assert.equal(s.echo.calls, [{ text: 'alpha' }, { text: 'beta' }]);
    assert.equal(events.filter((e) => e.type === 'token').map((e) => (e as { text: string }).text), ['Let me ', 'check.', 'All ', 'done.']);
    assert.is(s.server.requests[0]!.body.stream, true);
    const assistant = s.server.requests[1]!.body.messages.find((m: any) => m.role === 'assistant');
    assert.equal(assistant, { role: 'assistant', content: 'Let me check.', tool_calls: [
      { function: { name: 'echo', arguments: { text: 'alpha' } } }, { function: { name: 'echo', arguments: { text: 'beta' } } },
    ] });
  } finally { await s.cleanup(); }
});

test('a proxy\'s plain-text 502 is a retryable server error too', async () => {
  const s = await setup([{ status: 502, text: 'Bad Gateway' }, { json: chatResponse({ content: 'through' }) }]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.answer, 'through');
    assert.equal(s.attempts.map((a) => [a.code, a.status]), [['ORYX_E_LLM_SERVER', 502]]);
    assert.match(s.attempts[0]!.message, 'Bad Gateway');
  } finally { await s.cleanup(); }
});

test('401 is final: one attempt', async () => {
  const s = await setup([{ status: 401, json: { error: 'unauthorized' } }]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.error?.code, 'ORYX_E_LLM_AUTH');
    assert.match(r.error!.message, 'provider "ollama" (model m)');
    assert.match(r.error!.hint!, 'headers');
    assert.is(s.server.requests.length, 1);
    assert.equal(s.attempts.map((a) => a.willRetry), [false]);
  } finally { await s.cleanup(); }
});

test('a model that is not pulled: final, and the hint says ollama pull', async () => {
  const s = await setup([{ status: 404, json: { error: 'model "m" not found, try pulling it first' } }]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.error?.code, 'ORYX_E_LLM_NOT_FOUND');
    assert.match(r.error!.message, 'not found, try pulling it first');
    assert.match(r.error!.hint!, 'ollama pull m');
    assert.is(s.server.requests.length, 1);
  } finally { await s.cleanup(); }
});

test('an error line inside the stream is a retryable server error', async () => {
  const s = await setup([
    { events: [{ error: 'an error was encountered while running the model' }] },
    { events: [part('ok'), donePart([1, 1])] },
  ]);
  try {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true });
    assert.is(r.answer, 'ok');
    assert.equal(s.attempts.map((a) => [a.code, a.willRetry]), [['ORYX_E_LLM_SERVER', true]]);
    assert.match(s.attempts[0]!.message, 'an error was encountered while running the model');
  } finally { await s.cleanup(); }
});

test.run();
