import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Message, ToolSpec } from '@oryxos/provider-spec';
import type { Plugin, Prompt, PromptReport, Tool, TrimInfo } from '@oryxos/kernel';
import { scripted, testKernel } from '@oryxos/kernel/testing';

const u = (content: string): Message => ({ role: 'user', content });
const a = (content: string, ids: string[] = []): Message => ({ role: 'assistant', content, ...(ids.length ? { toolCalls: ids.map((id) => ({ id, name: 't', args: {} })) } : {}) });
const r = (id: string): Message => ({ role: 'tool', toolCallId: id, name: 't', content: `result ${id}` });

const trims = (kernel: { hooks: { trimContext: { tapPromise: Function } } }) => {
  const seen: TrimInfo[] = [];
  kernel.hooks.trimContext.tapPromise('observer', async (info: TrimInfo) => { seen.push(info); });
  return seen;
};

test('max_history_turns: only the last N turns are sent, tool pairs intact, and each leaving turn is reported once', async () => {
  const echo: Tool = { name: 't', description: 't', source: 'plugin', inputSchema: { type: 'object' }, async execute() { return 'tool out'; } };
  const p: Plugin = { name: 'tools', version: '1.0.0', kernel: '^1', setup(k) { k.registerTool(echo); } };
  const step = (n: number) => [{ toolCalls: [{ name: 't', id: `c${n}` }] }, { text: `answer ${n}` }];
  const llm = scripted([...step(1), ...step(2), ...step(3), ...step(4)]);
  const t = await testKernel({ plugins: [llm, p], agents: { assistant: { tools: ['t'], settings: { max_history_turns: 2 } } } });
  const seen = trims(t.kernel);
  let session: string | undefined;
  for (let i = 1; i <= 4; i++) session = (await t.service.process({ agent: 'assistant', message: `ask ${i}`, session })).sessionId;
  const last = llm.requests.at(-1)!.messages.slice(1);
  assert.equal(last.map((m) => m.role === 'user' ? m.content : m.role), ['ask 3', 'assistant', 'tool', 'assistant', 'ask 4', 'assistant', 'tool']);
  assert.equal(seen.map((s) => [s.reason, s.turns.map((x) => x.messages[0]!.content)]), [['window', ['ask 1']], ['window', ['ask 2']]]);
  assert.equal(seen.map((s) => s.turns[0]!.firstSeq), [1, 5]);
  await t.close();
});

test('context_tokens: a huge tool result is cut with a marker and the prompt fits the budget', async () => {
  const big: Tool = { name: 'big', description: 'big', source: 'plugin', inputSchema: { type: 'object' }, async execute() { return 'x'.repeat(1_000_000); } };
  const p: Plugin = { name: 'tools', version: '1.0.0', kernel: '^1', setup(k) { k.registerTool(big); } };
  const llm = scripted([{ toolCalls: [{ name: 'big' }] }, { text: 'ok' }]);
  // The output cap is raised so the whole result reaches the prompt builder.
  const t = await testKernel({ plugins: [llm, p], agents: { assistant: { tools: ['big'], settings: { context_tokens: 4_000, max_tool_output_chars: 2_000_000 } } } });
  await t.service.process({ agent: 'assistant', message: 'go' });
  const req = llm.requests[1]!;
  const chars = req.messages.reduce((n, m) => n + m.content.length, 0) + JSON.stringify(req.tools).length;
  assert.ok(chars <= 4_000 * 4, `prompt is ${chars} chars`);
  assert.match(req.messages.at(-1)!.content, /cut [\d,]+ of 1,000,000 characters/);
  // the stored result is whole: cutting is for the prompt only
  const stored = await t.kernel.service('sessions').messages((await t.kernel.service('sessions').list()).items[0]!.id);
  assert.is(stored.at(-2)!.message.content.length, 1_000_000);
  await t.close();
});

test('context_tokens: older turns are dropped whole (reported as budget) before the current one is touched', async () => {
  const llm = scripted([{ text: 'A'.repeat(9_000) }, { text: 'B'.repeat(9_000) }, { text: 'short' }]);
  const t = await testKernel({ plugins: [llm], agents: { assistant: { settings: { context_tokens: 4_000 } } } });
  const seen = trims(t.kernel);
  let s = (await t.service.process({ agent: 'assistant', message: 'one' })).sessionId;
  s = (await t.service.process({ agent: 'assistant', message: 'two', session: s })).sessionId;
  await t.service.process({ agent: 'assistant', message: 'three', session: s });
  const sent = llm.requests[2]!.messages.slice(1).map((m) => m.content.slice(0, 5));
  assert.equal(sent, ['two', 'BBBBB', 'three']);
  assert.equal(seen.map((x) => [x.reason, x.turns.map((turn) => turn.messages[0]!.content)]), [['budget', ['one']]]);
  await t.close();
});

test('a session interrupted between a tool call and its result: the call gets a result (committed) before the new message', async () => {
  const llm = scripted([{ text: 'recovered' }]);
  const t = await testKernel({ plugins: [llm] });
  const store = t.kernel.service('sessions');
  const s = await store.create({ agent: 'assistant' });
  await store.append(s.id, [u('do it'), a('', ['k1'])]);
  await t.service.process({ agent: 'assistant', message: 'again', session: s.id });
  const sent = llm.requests[0]!.messages.slice(1);
  assert.equal(sent.map((m) => m.role), ['user', 'assistant', 'tool', 'user']);
  assert.match(sent[2]!.content, 'Not run: a new message came before this call ran');
  assert.equal((await store.messages(s.id)).map((m) => m.message.role), ['user', 'assistant', 'tool', 'user', 'assistant'], 'the result is stored, so the history is whole');
  await t.close();
});

test('the prompt report records injected and cut sections, every iteration', async () => {
  const llm = scripted([{ text: 'ok' }]);
  const t = await testKernel({ plugins: [llm], agents: { assistant: { body: 'P'.repeat(100), settings: { context_tokens: 300 } } } });
  const s = await t.kernel.service('sessions').create({ agent: 'assistant' });
  await t.kernel.service('sessions').append(s.id, [u('old '.repeat(400)), a('old answer')]);
  const reports: PromptReport[] = [];
  await t.service.process({ agent: 'assistant', message: 'new', session: s.id, onEvent: (e) => { if (e.type === 'prompt') reports.push(e.report); } });
  assert.is(reports.length, 1);
  const [report] = reports;
  assert.equal(report!.injected.find((x) => x.section === 'agent'), { section: 'agent', chars: 100 });
  assert.ok(report!.injected.some((x) => x.section === 'history' && x.chars === 3));
  assert.equal(report!.cut.map((c) => [c.section, c.chars]), [['history', 1600 + 10]]);
  assert.ok(report!.estimatedTokens > 0 && report!.estimatedTokens <= 300);
  await t.close();
});

test.run();
