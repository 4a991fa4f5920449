// The unhappy paths of a run: a model repeating itself, a budget used up, tool calls that
// overlap. Only the model is scripted; tools, sessions and hooks are the real ones.
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OryxError, type ToolMessage } from '@oryxos/provider-spec';
import type { Tool } from '@oryxos/kernel';
import { echoTool, scripted, testKernel, toolsPlugin, type ScriptStep } from '@oryxos/kernel/testing';

const call = (name: string, args: Record<string, unknown> = {}): ScriptStep => ({ toolCalls: [{ name, args }] });
const toolResults = async (t: Awaited<ReturnType<typeof testKernel>>, sessionId: string) =>
  (await t.kernel.service('sessions').messages(sessionId)).map((s) => s.message).filter((m): m is ToolMessage => m.role === 'tool');

/** Every stored tool call has exactly one result. */
async function consistent(t: Awaited<ReturnType<typeof testKernel>>, sessionId: string): Promise<void> {
  const messages = (await t.kernel.service('sessions').messages(sessionId)).map((s) => s.message);
  const ids = messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []));
  const results = messages.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : []));
  assert.equal(results.sort(), ids.sort(), 'every call has its result');
}

// ---------------------------------------------------------------------------------------
// Loop detection

test('loop: the same call again and again is warned at the 3rd, stopped at the 4th, then answered without tools', async () => {
  const echo = echoTool();
  const same = call('echo', { text: 'again' });
  const llm = scripted([same, same, same, same, { text: 'I kept getting "again"; the task is unfinished.' }]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo)] });
  const r = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(r.stopReason, 'loop');
  assert.match(r.notice!, /^stopped in a loop: you have called echo with the same arguments 3 times in a row/);
  assert.is(r.answer, 'I kept getting "again"; the task is unfinished.');
  assert.is(echo.calls.length, 2, 'the warned and the stopped call did not run');
  const results = await toolResults(t, r.sessionId);
  assert.match(results[2]!.content, 'Loop detected: you have called echo with the same arguments 3 times in a row');
  assert.match(results[2]!.content, 'Repeating it again ends the run.');
  assert.match(results[3]!.content, 'Not run: the run stopped in a loop');
  assert.equal(llm.requests[4]!.tools, []);
  assert.match(llm.requests[4]!.messages.at(-1)!.content, 'going round in circles');
  await consistent(t, r.sessionId);
  await t.close();
});

test('loop: arguments are compared canonically (key order does not matter)', async () => {
  const echo = echoTool();
  const tool: Tool = { ...echo, name: 'pair', inputSchema: { type: 'object' } };
  const llm = scripted([call('pair', { a: 1, b: [1, { x: 2, y: 3 }] }), call('pair', { b: [1, { y: 3, x: 2 }], a: 1 }), { text: 'ok' }]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(tool)], agents: { assistant: { tools: ['*'], settings: { loop_detection: { repeat: 2 } } } } });
  const r = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(echo.calls.length, 1);
  assert.match((await toolResults(t, r.sessionId))[1]!.content, '2 times in a row');
  assert.is(r.stopReason, 'final', 'a warning alone does not stop the run');
  await t.close();
});

test('loop: an A-B-A-B ping-pong is warned at the 4th call and stopped at the 5th', async () => {
  const echo = echoTool();
  const a = call('echo', { text: 'a' });
  const b = call('echo', { text: 'b' });
  const llm = scripted([a, b, a, b, a, { text: 'stuck between a and b' }]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo)] });
  const r = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(r.stopReason, 'loop');
  assert.is(echo.calls.length, 3);
  assert.match((await toolResults(t, r.sessionId))[3]!.content, 'alternating between echo and echo');
  assert.match(r.notice!, 'alternating');
  await consistent(t, r.sessionId);
  await t.close();
});

test('loop: the same failing call with the same error twice gets a warning; a third time stops the run', async () => {
  const echo = echoTool();
  const failing: Tool = { name: 'fetch', description: 'fails', source: 'plugin', inputSchema: { type: 'object' }, async execute() { throw new Error('HTTP 404'); } };
  const f = call('fetch', { url: 'x' });
  const llm = scripted([f, call('echo', { text: '1' }), f, call('echo', { text: '2' }), f, { text: 'the page does not exist' }]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo, failing)] });
  const r = await t.service.process({ agent: 'assistant', message: 'go' });
  const results = await toolResults(t, r.sessionId);
  assert.is(results[0]!.content, 'fetch failed: HTTP 404');
  assert.match(results[2]!.content, /^fetch failed: HTTP 404\n\nLoop detected: fetch failed twice with the same arguments and the same error/);
  assert.is(r.stopReason, 'loop');
  assert.is(r.answer, 'the page does not exist');
  await t.close();
});

test('loop: loop_detection: false lets the same call run every time', async () => {
  const echo = echoTool();
  const same = call('echo', { text: 'again' });
  const llm = scripted([same, same, same, same, { text: 'done' }]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo)], agents: { assistant: { tools: ['*'], settings: { loop_detection: false } } } });
  const r = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(r.stopReason, 'final');
  assert.is(echo.calls.length, 4);
  await t.close();
});

// ---------------------------------------------------------------------------------------
// The run budget

test('budget: max_tokens stops the run with budget naming the limit, after a final tool-less call', async () => {
  const echo = echoTool();
  const used = (n: number): ScriptStep => ({ ...call('echo', { text: String(n) }), usage: { inputTokens: 50, outputTokens: 10 } });
  const llm = scripted([used(1), used(2), { text: 'partial', usage: { inputTokens: 50, outputTokens: 5 } }]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo)], agents: { assistant: { tools: ['*'], settings: { max_tokens: 100 } } } });
  const r = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(r.stopReason, 'budget');
  assert.equal(r.limit, { name: 'max_tokens', value: 100 });
  assert.is(r.notice, 'stopped at max_tokens (100 tokens)');
  assert.is(llm.requests.length, 3, 'two calls used 120 tokens; then only the final call');
  assert.equal(llm.requests[2]!.tools, []);
  assert.is(r.answer, 'partial');
  assert.is(r.budget.tokens, 175);
  await t.close();
});

test('budget: max_tool_calls refuses the calls past it and stops with budget', async () => {
  const echo = echoTool();
  const two = (n: number): ScriptStep => ({ toolCalls: [{ name: 'echo', args: { text: `${n}a` } }, { name: 'echo', args: { text: `${n}b` } }] });
  const llm = scripted([two(1), two(2), { text: 'three of four done' }]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo)], agents: { assistant: { tools: ['*'], settings: { max_tool_calls: 3 } } } });
  const r = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(r.stopReason, 'budget');
  assert.equal(r.limit, { name: 'max_tool_calls', value: 3 });
  assert.is(echo.calls.length, 3);
  assert.is(r.budget.toolCalls, 3);
  assert.match((await toolResults(t, r.sessionId))[3]!.content, 'Not run: the run stopped at max_tool_calls (3 tool calls).');
  assert.is(r.answer, 'three of four done');
  await consistent(t, r.sessionId);
  await t.close();
});

test('budget: max_duration_ms aborts a slow tool (its result says so) and ends without another model call', async () => {
  const slow: Tool = {
    name: 'slow', description: 'sleeps', source: 'plugin', inputSchema: { type: 'object' },
    async execute(_args, ctx) { await sleep(30_000, undefined, { signal: ctx.signal }); return 'woke up'; },
  };
  const llm = scripted([call('slow'), { text: 'unreached' }]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(slow)], agents: { assistant: { tools: ['*'], settings: { max_duration_ms: 300 } } } });
  const r = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(r.stopReason, 'budget');
  assert.equal(r.limit, { name: 'max_duration_ms', value: 300 });
  assert.is(llm.requests.length, 1);
  assert.ok(r.budget.ms >= 300 && r.budget.ms < 25_000, `ended at the deadline (${r.budget.ms} ms)`);
  assert.match((await toolResults(t, r.sessionId))[0]!.content, 'Aborted: the run stopped at max_duration_ms (300 ms of run time)');
  await consistent(t, r.sessionId);
  await t.close();
});

test('budget: max_llm_retries counts retries across the whole run, not per call', async () => {
  const echo = echoTool();
  const boom = { error: new OryxError('ORYX_E_LLM_SERVER', 'HTTP 500', { retryable: true }) };
  const llm = scripted([boom, call('echo', { text: '1' }), boom, call('echo', { text: '2' }), boom, { text: 'unreached' }], { retry: { maxRetries: 2, baseDelayMs: 1 } });
  const t = await testKernel({ plugins: [llm, toolsPlugin(echo)], agents: { assistant: { tools: ['*'], settings: { max_llm_retries: 2 } } } });
  const retried: boolean[] = [];
  t.kernel.hooks.llmError.tap('test', (_e, info) => { retried.push(info.willRetry); });
  const r = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(r.stopReason, 'budget');
  assert.equal(r.limit, { name: 'max_llm_retries', value: 2 });
  assert.equal(retried, [true, true, false], 'the third failure is not retried: the run has no retry left');
  assert.is(r.budget.retries, 2);
  assert.is(llm.requests.length, 5);
  await t.close();
});

test('budget: defaults for every agent come from settings in oryx.config.ts; AGENT.md overrides them', async () => {
  const { Kernel, resolveConfig } = await import('@oryxos/kernel');
  const config = resolveConfig({ plugins: [], settings: { max_tokens: 500, loop_detection: { repeat: 5 } } }, process.cwd());
  const t = await testKernel({ plugins: [scripted([])], agents: { a: { settings: { max_tool_calls: 7 } } } });
  const loader = new Kernel({ config: { ...config, workspaceDir: t.kernel.config.workspaceDir } }).agents;
  const a = await loader.load('a');
  assert.equal([a.settings.max_tokens, a.settings.max_tool_calls, a.settings.loop_detection], [500, 7, { repeat: 5, pingpong: 4 }]);
  assert.throws(() => resolveConfig({ plugins: [], settings: { max_tokns: 5 } }, process.cwd()), /unknown key|max_tokns/);
  await t.close();
});

// ---------------------------------------------------------------------------------------
// Parallel tool calls

/** A tool that sleeps `ms` and records how many of its kind ran at once. */
function sleeper(name: string, meter: { active: number; peak: number; log: string[] }, extra: Partial<Tool> = {}): Tool {
  return {
    name, description: name, source: 'plugin', inputSchema: { type: 'object' }, ...extra,
    async execute(args) {
      meter.active++;
      meter.peak = Math.max(meter.peak, meter.active);
      meter.log.push(`start ${name}${args.tag ?? ''} with ${meter.active - 1} other(s)`);
      await sleep(Number(args.ms ?? 300));
      meter.log.push(`end ${name}${args.tag ?? ''} with ${meter.active - 1} other(s)`);
      meter.active--;
      return `${name}${args.tag ?? ''} slept`;
    },
  };
}

test('parallel: three 300 ms calls of one response run together; results are committed in call order', async () => {
  const meter = { active: 0, peak: 0, log: [] as string[] };
  const llm = scripted([{ toolCalls: [300, 100, 10].map((ms, i) => ({ name: 'nap', args: { ms, tag: i } })) }, { text: 'rested' }]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(sleeper('nap', meter))] });
  const started = performance.now();
  const r = await t.service.process({ agent: 'assistant', message: 'go' });
  const ms = performance.now() - started;
  assert.is(meter.peak, 3, 'all three ran at the same time');
  assert.ok(ms < 5_000, `together, not one after the other (${Math.round(ms)} ms)`);
  assert.equal((await toolResults(t, r.sessionId)).map((m) => m.content), ['nap0 slept', 'nap1 slept', 'nap2 slept']);
  await t.close();
});

test('parallel: max_parallel_tools caps how many run at once; parallel_tools: false runs them one by one', async () => {
  for (const [settings, peak] of [[{ max_parallel_tools: 2 }, 2], [{ parallel_tools: false }, 1]] as const) {
    const meter = { active: 0, peak: 0, log: [] as string[] };
    const llm = scripted([{ toolCalls: [0, 1, 2, 3].map((tag) => ({ name: 'nap', args: { ms: 50, tag } })) }, { text: 'ok' }]);
    const t = await testKernel({ plugins: [llm, toolsPlugin(sleeper('nap', meter))], agents: { assistant: { tools: ['*'], settings } } });
    await t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(meter.peak, peak, JSON.stringify(settings));
    await t.close();
  }
});

test('parallel: a parallel: false tool never runs at the same time as another call', async () => {
  const meter = { active: 0, peak: 0, log: [] as string[] };
  const tags = ['r', 'w', 'r', 'r', 'w', 'r'];
  const llm = scripted([{ toolCalls: tags.map((name, tag) => ({ name, args: { ms: 40, tag } })) }, { text: 'ok' }]);
  const t = await testKernel({ plugins: [llm, toolsPlugin(sleeper('r', meter), sleeper('w', meter, { parallel: false }))] });
  const r = await t.service.process({ agent: 'assistant', message: 'go' });
  // Alone when it starts and still alone when it ends: nothing ran beside it.
  assert.equal(meter.log.filter((l) => /^(start|end) w/.test(l)), ['start w1', 'end w1', 'start w4', 'end w4'].map((l) => `${l} with 0 other(s)`));
  assert.ok(meter.log.includes('start r3 with 1 other(s)'), 'the reads between the writes still ran together');
  assert.equal((await toolResults(t, r.sessionId)).map((m) => m.content), tags.map((name, i) => `${name}${i} slept`));
  await t.close();
});

test.run();
