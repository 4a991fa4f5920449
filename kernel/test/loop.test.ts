import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OryxError, STAGE, type Plugin, type Tool } from '../src/index.ts';
import { scripted, testKernel } from '../src/testing.ts';

const echo: Tool = {
  name: 'echo', description: 'Echo text back', source: 'plugin',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  async execute(args) { return `echo: ${args.text}`; },
};
const toolsPlugin = (...tools: Tool[]): Plugin => ({
  name: 'test-tools', version: '1.0.0', kernel: '^1', setup(k) { for (const t of tools) k.registerTool(t); },
});

test('no tool calls: the first answer is final', async () => {
  const llm = scripted([{ text: 'hello there' }]);
  const t = await testKernel({ plugins: [llm] });
  const r = await t.service.process({ agent: 'assistant', message: 'hi' });
  assert.is(r.answer, 'hello there');
  assert.is(r.stopReason, 'final');
  assert.is(r.iterations, 1);
  assert.equal(r.usage, { inputTokens: 10, outputTokens: 5 });
  const req = llm.requests[0]!;
  assert.is(req.messages[0]!.role, 'system');
  assert.match(req.messages[0]!.content, 'You are assistant.');
  assert.equal(req.messages.slice(1), [{ role: 'user', content: 'hi' }]);
  await t.close();
});

test('one tool call: the result goes back to the model as a structured tool message', async () => {
  const llm = scripted([{ toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'ping' } }] }, { text: 'got it' }]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo)] });
  const r = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(r.answer, 'got it');
  assert.is(r.iterations, 2);
  const second = llm.requests[1]!.messages;
  assert.equal(second.at(-1), { role: 'tool', toolCallId: 'c1', name: 'echo', content: 'echo: ping' });
  assert.equal(second.at(-2), { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'ping' } }] });
  assert.equal(llm.requests[0]!.tools.map((x) => x.name), ['echo']);
  await t.close();
});

test.run();
