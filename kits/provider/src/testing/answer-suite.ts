/**
 * The answer-shape tests every provider passes, streamed and not: parallel calls, reasoning kept
 * and sent back on the tool loop's next request, every finish reason surfaced with the
 * server's word, cache figures read (or left undefined), error bodies of any shape (an HTML
 * page with 200, a proxy's 502 page, an error event inside a stream), and the request's
 * headers and output cap reaching the server.
 */
import assert from 'node:assert/strict';
import type { AssistantMessage, ChatRequest } from '@oryxos/provider-spec';
import type { RunEvent } from '@oryxos/kernel';
import type { Test, WireDialect, WireRun } from './suite.ts';

const HTML = '<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head><body>It works</body></html>';

/** Registers the answer-shape tests (called by `providerWireSuite`). */
export function answerWireSuite(test: Test, d: WireDialect, run: WireRun): void {
  const p = d.provider;
  for (const stream of [false, true]) {
    const mode = stream ? 'streamed' : 'whole';
    const reply = (input: Parameters<WireDialect['answer']>[0]) => (stream ? { events: d.streamed(input) } : { json: d.answer(input) });
    const go = (s: Parameters<Parameters<WireRun>[2]>[0], message = 'go') => s.t.service.process({ agent: 'assistant', message, stream });

    test(`${p} wire (${mode}): two tool calls in one answer both run, and both results go back`, () => run([
      reply({ toolCalls: [{ id: 'call_p1', name: 'echo', args: { text: 'one' } }, { id: 'call_p2', name: 'echo', args: { text: 'two' } }], usage: [10, 4] }),
      reply({ content: 'both done', usage: [20, 2] }),
    ], {}, async (s) => {
      const r = await go(s);
      assert.equal(r.answer, 'both done');
      assert.deepEqual(s.echo.calls, [{ text: 'one' }, { text: 'two' }]);
      const sent = JSON.stringify(s.server.requests[1]!.body);
      assert.ok(sent.includes('echo: one') && sent.includes('echo: two'), sent);
    }));

    test(`${p} wire (${mode}): reasoning is kept as a reasoning part, stored, and sent back on the tool loop's next request`, () => run([
      reply({ reasoning: 'The user wants an echo, so I call echo.', toolCalls: [{ id: 'call_r1', name: 'echo', args: { text: 'hm' } }], usage: [10, 9] }),
      reply({ reasoning: 'Done, answer.', content: 'echoed', usage: [20, 3] }),
    ], {}, async (s) => {
      const r = await go(s);
      assert.equal(r.answer, 'echoed');
      const first = s.responses[0]!.message;
      assert.deepEqual(first.parts?.map((part) => [part.type, part.text]), [['reasoning', 'The user wants an echo, so I call echo.']]);
      assert.equal(d.echoedReasoning(s.server.requests[1]!.body, 0), 'The user wants an echo, so I call echo.', 'the server gets its reasoning back');
      const stored = (await s.t.kernel.service('sessions').messages(r.sessionId)).map((m) => m.message);
      const assistant = stored.find((m): m is AssistantMessage => m.role === 'assistant' && !!m.toolCalls?.length);
      assert.deepEqual(assistant?.parts, first.parts, 'the session keeps the part with its metadata');
    }));

    test(`${p} wire (${mode}): a cut-off answer finishes with length, the server's word (${d.finishWords.length}) kept`, () => run([
      reply({ content: 'The first half of a long', finish: 'length', usage: [10, 50] }),
    ], {}, async (s) => {
      const r = await go(s);
      assert.equal(r.answer, 'The first half of a long');
      assert.deepEqual([s.responses[0]!.finishReason, s.responses[0]!.rawFinishReason], ['length', d.finishWords.length]);
    }));

    if (d.finishWords.content_filter) {
      const word = d.finishWords.content_filter;
      test(`${p} wire (${mode}): a withheld answer finishes with content_filter, the server's word (${word}) kept`, () => run([
        reply({ content: '', finish: 'content_filter', usage: [10, 0] }),
      ], {}, async (s) => {
        await go(s);
        assert.deepEqual([s.responses[0]!.finishReason, s.responses[0]!.rawFinishReason], ['content_filter', word]);
      }));
    }

    test(`${p} wire (${mode}): cached input tokens come from the usage${d.reportsCache ? '' : ' (none reported: undefined, never 0)'}`, () => run([
      reply({ content: 'cached', usage: [1200, 5], cache: { read: 1024, write: 100 } }),
      reply({ content: 'plain', usage: [30, 5] }),
    ], {}, async (s) => {
      await go(s, 'one');
      await go(s, 'two');
      const [cached, plain] = s.responses.map((x) => x.usage);
      if (d.reportsCache) {
        assert.equal(cached!.cacheReadTokens, 1024);
        assert.ok(cached!.inputTokens >= 1200, 'inputTokens counts every input token, cached ones included');
      } else {
        assert.equal(cached!.cacheReadTokens, undefined);
      }
      assert.equal(plain!.cacheReadTokens, undefined, 'a usage without cache figures leaves them undefined');
      assert.equal(plain!.cacheWriteTokens, undefined);
    }));

    test(`${p} wire (${mode}): an HTML page with 200 (a wrong base URL) is a final ORYX_E_LLM_BAD_RESPONSE naming ${d.urlOption}`, () => run([
      { text: HTML, status: 200, headers: { 'content-type': 'text/html' } },
    ], {}, async (s) => {
      const r = await go(s);
      assert.equal(r.error?.code, 'ORYX_E_LLM_BAD_RESPONSE');
      assert.match(r.error!.message, /HTML page \("Welcome to nginx!"\)/);
      assert.ok(r.error!.hint!.includes(d.urlOption), r.error!.hint);
      assert.equal(s.server.requests.length, 1);
    }));

    test(`${p} wire (${mode}): a proxy's 502 HTML page keeps its title and is retried`, () => run([
      { text: '<html><head><title>502 Bad Gateway</title></head></html>', status: 502, headers: { 'content-type': 'text/html' } },
      reply({ content: 'through', usage: [5, 1] }),
    ], {}, async (s) => {
      const r = await go(s);
      assert.equal(r.answer, 'through');
      assert.deepEqual(s.attempts.map((a) => [a.code, a.willRetry, a.status]), [['ORYX_E_LLM_SERVER', true, 502]]);
      assert.match(s.attempts[0]!.message, /502 Bad Gateway/);
    }));
  }

  test(`${p} wire: an error event inside the stream carries the server's message and is retried before any token`, () => run([
    { events: [d.streamError('the engine ran out of KV cache')] },
    { events: d.stream(['fine'], [3, 1]) },
  ], {}, async (s) => {
    const r = await s.t.service.process({ agent: 'assistant', message: 'go', stream: true });
    assert.equal(r.answer, 'fine');
    assert.equal(s.attempts.length, 1);
    assert.match(s.attempts[0]!.message, /the engine ran out of KV cache/);
    assert.equal(s.attempts[0]!.willRetry, true);
  }));

  for (const stream of [false, true]) {
    test(`${p} wire (${stream ? 'streamed' : 'whole'}): the request's headers and output cap reach the server`, () => run([
      stream ? { events: d.stream(['ok'], [3, 1]) } : { json: d.answer({ content: 'ok', usage: [3, 1] }) },
    ], {}, async (s) => {
      const provider = s.t.kernel.provider(p);
      const request: ChatRequest = {
        model: 'm', tools: [], messages: [{ role: 'user', content: 'hi' }], maxOutputTokens: 321,
        headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
      };
      if (stream) { const events: unknown[] = []; for await (const e of provider.stream!(request)) events.push(e); }
      else await provider.chat(request);
      const sent = s.server.requests[0]!;
      assert.equal(sent.headers.traceparent, '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
      assert.equal(d.maxTokensOf(sent.body), 321);
    }));
  }

  test(`${p} wire: streamed reasoning arrives as reasoning deltas, apart from the text`, () => run([
    { events: d.streamed({ reasoning: 'Thinking it over.', content: 'Answer.', usage: [5, 5] }) },
  ], {}, async (s) => {
    const provider = s.t.kernel.provider(p);
    const events: RunEvent[] = [];
    let reasoning = '';
    let text = '';
    for await (const e of provider.stream!({ model: 'm', tools: [], messages: [{ role: 'user', content: 'hi' }] })) {
      if (e.type === 'reasoning') reasoning += e.delta;
      if (e.type === 'text') text += e.delta;
      events.push(e as unknown as RunEvent);
    }
    assert.equal(reasoning, 'Thinking it over.');
    assert.equal(text, 'Answer.');
  }));
}
