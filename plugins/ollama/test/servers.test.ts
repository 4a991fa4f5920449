// Ollama's own /api/chat in the shapes its documentation shows, streamed and not, through the
// real `ollama` client: a thinking model (docs.ollama.com "Thinking": `think: true` gives
// `message.thinking` beside `content`, streamed in parts before the answer) calling two tools
// in one message (docs.ollama.com "Tool calling": parallel calls with object arguments, results
// sent back as `role: tool` messages with `tool_name`, and the assistant message — thinking
// included — appended before them).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { wireKernel, type Reply } from '@oryxos/provider-kit/testing';
import { chatResponse, donePart, ollamaDialect } from './helpers/ollama-server.ts';

const base = { model: 'qwen3', created_at: '2025-05-29T09:35:56.012Z' };
const THINKING = 'The user wants the temperature in two cities, so I call get_temperature for each.';
const calls = [{ function: { name: 'echo', arguments: { text: 'New York' } } }, { function: { name: 'echo', arguments: { text: 'London' } } }];

const first = (stream: boolean): Reply => (stream
  ? { events: [
    { ...base, message: { role: 'assistant', content: '', thinking: 'The user wants the temperature in two cities,' }, done: false },
    { ...base, message: { role: 'assistant', content: '', thinking: ' so I call get_temperature for each.' }, done: false },
    { ...base, message: { role: 'assistant', content: '', tool_calls: calls }, done: false },
    donePart([120, 40]),
  ] }
  : { json: { ...chatResponse({ usage: [120, 40] }), message: { role: 'assistant', content: '', thinking: THINKING, tool_calls: calls } } });

for (const stream of [false, true]) {
  test(`a thinking model's parallel calls (${stream ? 'streamed' : 'whole'}): both run; the next request carries the thinking, both calls and both results in order`, async () => {
    const s = await wireKernel(ollamaDialect, [first(stream), { json: chatResponse({ content: 'New York 22°C, London 15°C.', usage: [200, 12] }) }]);
    try {
      const r = await s.t.service.process({ agent: 'assistant', message: 'What is the temperature in New York and London?', stream });
      assert.is(r.answer, 'New York 22°C, London 15°C.');
      assert.equal(s.echo.calls, [{ text: 'New York' }, { text: 'London' }]);
      const sent = s.server.requests[1]!.body.messages.slice(1);
      assert.equal(sent.map((m: any) => m.role), ['user', 'assistant', 'tool', 'tool']);
      assert.is(sent[1].thinking, THINKING);
      assert.equal(sent[1].tool_calls, calls);
      assert.equal(sent.slice(2).map((m: any) => [m.tool_name, m.content]), [['echo', 'echo: New York'], ['echo', 'echo: London']]);
      assert.equal(s.responses[0]!.usage, { inputTokens: 120, outputTokens: 40 }, 'no cache figures: Ollama reports none');
    } finally { await s.cleanup(); }
  });
}

test.run();
