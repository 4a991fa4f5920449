// What a tool's `idempotent` flag changes: a call of such a tool takes no start mark, and a call
// of it left without a result (its process died) is not reported as "may have run" — the way
// the store looks after a SIGKILL is written here directly (test/at-most-once.test.ts kills
// real processes for the marked case).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { STAGE, type Plugin, type Tool } from '@oryxos/kernel';
import { scripted, testKernel, toolsPlugin } from '@oryxos/kernel/testing';

const look: Tool = { name: 'look', description: 'Reads', source: 'plugin', idempotent: true, inputSchema: { type: 'object' }, async execute() { return 'seen'; } };
const poke: Tool = { name: 'poke', description: 'Writes', source: 'plugin', inputSchema: { type: 'object' }, async execute() { return 'poked'; } };

test('a call of an idempotent tool takes no start mark; a call of any other tool has one while it runs', async () => {
  const marked = new Map<string, boolean>();
  const probe: Plugin = {
    name: 'probe', version: '1.0.0', kernel: '^1',
    setup(ctx) {
      ctx.hooks.afterTool.tapPromise({ stage: STAGE.OBSERVE }, async (result, info) => {
        const open = await ctx.service('sessions').startedWithoutResult(info.run.sessionId);
        marked.set(info.call.name, open.some((m) => m.toolCallId === info.call.id));
        return result;
      });
    },
  };
  const llm = scripted([{ toolCalls: [{ id: 'a', name: 'look', args: {} }] }, { toolCalls: [{ id: 'b', name: 'poke', args: {} }] }, { text: 'done' }]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(look, poke), probe], agents: { assistant: { tools: ['look', 'poke'] } } });
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.answer, 'done');
    assert.equal(Object.fromEntries(marked), { look: false, poke: true });
  } finally {
    await t.close();
  }
});

test('after a crash, an open call of an idempotent tool is "not run" by the next message, a marked call of another tool "interrupted"', async () => {
  const llm = scripted([{ text: 'fine' }]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(look, poke)], agents: { assistant: { tools: ['look', 'poke'] } } });
  try {
    const sessions = t.kernel.service('sessions');
    const session = await sessions.create({ agent: 'assistant' });
    // What a process SIGKILLed while both calls ran leaves: the calls, no results, their marks
    // (look's as an older version of it, not yet idempotent, would have left it).
    await sessions.append(session.id, [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'look', args: {} }, { id: 'b', name: 'poke', args: {} }] },
    ]);
    for (const [toolCallId, tool] of [['a', 'look'], ['b', 'poke']]) {
      await sessions.markStarted({ runId: 'dead', sessionId: session.id, toolCallId: toolCallId!, tool: tool!, argsHash: 'h', startedAt: new Date().toISOString() });
    }
    const r = await t.service.process({ agent: 'assistant', session: session.id, message: 'and now?' });
    assert.is(r.answer, 'fine');
    const results = (await sessions.messages(session.id)).flatMap((s) => (s.message.role === 'tool' ? [[s.message.toolCallId, s.message.content] as const] : []));
    assert.equal(results.map(([id]) => id), ['a', 'b']);
    assert.match(results[0]![1], /^Not run: a new message came before this call ran/);
    assert.match(results[1]![1], /^Interrupted: this call had started when its process stopped/);
  } finally {
    await t.close();
  }
});

test.run();
