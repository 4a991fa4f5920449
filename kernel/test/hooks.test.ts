import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OryxError } from '@oryxos/provider-spec';
import { STAGE, type Plugin, type Tool } from '@oryxos/kernel';
import { createHooks } from '../src/hooks.ts';
import { scripted, testKernel } from '@oryxos/kernel/testing';

const echo: Tool = {
  name: 'echo', description: 'echo', source: 'plugin', inputSchema: { type: 'object' },
  async execute(args) { return `echo ${JSON.stringify(args)}`; },
};
const plugin = (name: string, setup: Plugin['setup']): Plugin => ({ name, version: '1.0.0', kernel: '^1', setup });

test('hooks are declared once and frozen', () => {
  const hooks = createHooks();
  assert.ok(Object.isFrozen(hooks));
  assert.equal(Object.keys(hooks).sort(), ['afterLLM', 'afterRun', 'afterTool', 'beforeLLM', 'beforeTool', 'close', 'init', 'llmError', 'onLimit', 'prepareStep', 'runStart', 'trimContext']);
  assert.throws(() => { (hooks as Record<string, unknown>).extra = 1; });
});

test('stages order taps whatever the registration order', async () => {
  const hooks = createHooks();
  const order: string[] = [];
  hooks.afterRun.tapPromise({ name: 'audit', stage: STAGE.OBSERVE }, async () => { order.push('audit'); });
  hooks.afterRun.tapPromise({ name: 'plain' }, async () => { order.push('plain'); });
  hooks.afterRun.tapPromise({ name: 'sandbox', stage: STAGE.GUARD }, async () => { order.push('sandbox'); });
  await hooks.afterRun.promise({} as never, {} as never);
  assert.equal(order, ['sandbox', 'plain', 'audit']);
});

test('prepareStep is a waterfall: each tap sees the previous one\'s prompt', async () => {
  const llm = scripted([{ text: 'ok' }]);
  const p = plugin('memoryish', (k) => {
    k.hooks.prepareStep.tapPromise({ stage: STAGE.LATE }, async (prompt) => {
      prompt.memory.push({ id: 'late', content: `after ${prompt.memory.map((s) => s.id).join(',')}` });
      return prompt;
    });
    k.hooks.prepareStep.tapPromise(async (prompt) => ({ ...prompt, memory: [...prompt.memory, { id: 'first', title: 'Facts', content: 'the sky is green' }] }));
  });
  const t = await testKernel({ plugins: [llm, p] });
  await t.service.process({ agent: 'assistant', message: 'hi' });
  const system = llm.requests[0]!.messages[0]!.content;
  assert.match(system, '## Facts\n\nthe sky is green');
  assert.match(system, 'after first');
  assert.ok(system.indexOf('the sky is green') < system.indexOf('after first'));
  await t.close();
});

test('afterLLM is a waterfall that can rewrite the response', async () => {
  const llm = scripted([{ text: 'raw answer' }]);
  const p = plugin('policy', (k) => {
    k.hooks.afterLLM.tapPromise(async (r) => ({ ...r, message: { ...r.message, content: r.message.content.toUpperCase() } }));
  });
  const t = await testKernel({ plugins: [llm, p] });
  const r = await t.service.process({ agent: 'assistant', message: 'hi' });
  assert.is(r.answer, 'RAW ANSWER');
  await t.close();
});

test('beforeTool bails: a returned result replaces execution; undefined passes', async () => {
  let executed = 0;
  const counted: Tool = { ...echo, async execute() { executed++; return 'ran'; } };
  const llm = scripted([{ toolCalls: [{ id: 'x', name: 'echo', args: { block: true } }, { id: 'y', name: 'echo', args: {} }] }, { text: 'done' }]);
  const seen: string[] = [];
  const guard = plugin('approval', (k) => {
    k.registerTool(counted);
    k.hooks.beforeTool.tapPromise({ stage: STAGE.GUARD }, async ({ call }) =>
      call.args.block ? { content: 'refused by approval', isError: true, denied: 'user said no' } : undefined);
    k.hooks.beforeTool.tapPromise(async ({ call }) => { seen.push(call.id); return undefined; });
    k.hooks.afterTool.tapPromise({ stage: STAGE.OBSERVE }, async (result, info) => { seen.push(`${info.call.id}:${info.status}`); return result; });
  });
  const t = await testKernel({ plugins: [llm, guard] });
  await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(executed, 1);
  // The two calls run concurrently: x's and y's events may interleave, y's stay in order.
  assert.equal([...seen].sort(), ['x:denied', 'y', 'y:ok']);
  assert.ok(seen.indexOf('y') < seen.indexOf('y:ok'));
  const tools = llm.requests[1]!.messages.filter((m) => m.role === 'tool');
  assert.equal(tools[0], { role: 'tool', toolCallId: 'x', name: 'echo', content: 'refused by approval', isError: true });
  await t.close();
});

test('afterTool is a waterfall: redaction reaches the model and the store', async () => {
  const secret: Tool = { ...echo, name: 'secret', async execute() { return 'token=sk-abc123'; } };
  const llm = scripted([{ toolCalls: [{ name: 'secret' }] }, { text: 'ok' }]);
  const p = plugin('redact', (k) => {
    k.registerTool(secret);
    k.hooks.afterTool.tapPromise(async (r) => ({ ...r, content: r.content.replace(/sk-\w+/, '[redacted]') }));
  });
  const t = await testKernel({ plugins: [llm, p] });
  const r = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.match(llm.requests[1]!.messages.at(-1)!.content, 'token=[redacted]');
  const stored = await t.kernel.service('sessions').messages(r.sessionId);
  assert.not.match(JSON.stringify(stored), 'sk-abc123');
  await t.close();
});

test('a tap that throws is re-raised as ORYX_E_HOOK_FAILED naming plugin and hook', async () => {
  const llm = scripted([{ text: 'ok' }]);
  const bad = plugin('flaky', (k) => {
    k.hooks.prepareStep.tapPromise(async () => { throw new Error('disk full'); });
  });
  const t = await testKernel({ plugins: [llm, bad] });
  const r = await t.service.process({ agent: 'assistant', message: 'hi' });
  assert.is(r.stopReason, 'error');
  assert.is(r.error?.code, 'ORYX_E_HOOK_FAILED');
  assert.match(r.error!.message, 'Plugin "flaky" failed in hook "prepareStep": disk full');
  await t.close();
});

test('a tap throwing an OryxError keeps its code; the message still names plugin and hook', async () => {
  const llm = scripted([{ text: 'ok' }]);
  const bad = plugin('strict', (k) => {
    k.hooks.afterLLM.tapPromise(async () => { throw new OryxError('ORYX_E_POLICY_BLOCKED', 'answer blocked', { hint: 'ask differently' }); });
  });
  const t = await testKernel({ plugins: [llm, bad] });
  const r = await t.service.process({ agent: 'assistant', message: 'hi' });
  assert.equal(r.error, { code: 'ORYX_E_POLICY_BLOCKED', message: 'Plugin "strict" failed in hook "afterLLM": answer blocked', hint: 'ask differently' });
  await t.close();
});

test('init runs after every setup; close runs in reverse order, each even if one fails', async () => {
  const log: string[] = [];
  const mk = (name: string, services: Partial<Plugin>, failClose = false): Plugin => ({
    ...plugin(name, (k) => {
      log.push(`setup ${name}`);
      k.hooks.init.tapPromise(async () => { log.push(`init ${name}`); });
      k.hooks.close.tapPromise(async () => { log.push(`close ${name}`); if (failClose) throw new Error('nope'); });
    }),
    ...services,
  });
  const t = await testKernel({ plugins: [mk('audit', { requires: ['database'] }), mk('db', { provides: ['database'] }, true), mk('web', { requires: ['database'] })] });
  assert.equal(log, ['setup db', 'setup audit', 'setup web', 'init db', 'init audit', 'init web']);
  log.length = 0;
  try { await t.close(); assert.unreachable(); } catch (e) { assert.is((e as OryxError).code, 'ORYX_E_HOOK_FAILED'); }
  assert.equal(log, ['close web', 'close audit', 'close db']);
});

test('afterRun sees every run with its stop reason', async () => {
  const llm = scripted([{ text: 'fine' }]);
  const reasons: string[] = [];
  const p = plugin('notify', (k) => { k.hooks.afterRun.tapPromise(async (r) => { reasons.push(`${r.stopReason}:${r.answer}`); }); });
  const t = await testKernel({ plugins: [llm, p] });
  await t.service.process({ agent: 'assistant', message: 'hi' });
  assert.equal(reasons, ['final:fine']);
  await t.close();
});

test.run();
