// Sub-agents: `agents:` in AGENT.md offers `agent__<name>` tools that run the sub-agent in a
// child session on the caller's budget. Only the model is scripted; sessions, tools, hooks,
// the loader and the budget are the real ones.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isOryxError } from '@oryxos/provider-spec';
import type { Plugin, RunContext, RunResult, Tool } from '@oryxos/kernel';
import { echoTool, scripted, testKernel as baseKernel, toolsPlugin, type ScriptStep } from '@oryxos/kernel/testing';
import subagents from '../src/index.ts';

/** A test kernel with the sub-agents plugin. */
const testKernel: typeof baseKernel = (o) => baseKernel({ ...o, plugins: [...o.plugins, subagents()] });

const delegate = (agent: string, task: string): ScriptStep => ({ toolCalls: [{ name: `agent__${agent}`, args: { task } }] });
const toolNames = (tools: { name: string }[] | undefined) => (tools ?? []).map((t) => t.name).sort();

/** Records every run's context and result as it ends. */
function runSpy(): Plugin & { runs: { run: RunContext; result: RunResult }[] } {
  const runs: { run: RunContext; result: RunResult }[] = [];
  return {
    name: 'run-spy', version: '1.0.0', kernel: '^1', runs,
    setup(ctx) { ctx.hooks.afterRun.tapPromise(async (result, run) => { runs.push({ run, result }); }); },
  };
}

test('a parent calls agent__researcher: the sub-agent runs in a child session and its answer is the result', async () => {
  const spy = runSpy();
  const llm = scripted([delegate('researcher', 'find the capital of France'), { text: 'Paris.' }, { text: 'The researcher says: Paris.' }]);
  const t = await testKernel({
    plugins: [llm, spy],
    agents: { lead: { agents: ['researcher'], tools: [] }, researcher: { description: 'Finds facts on the web', tools: [], body: 'You research.' } },
  });
  const r = await t.service.process({ agent: 'lead', message: 'capital of France?' });
  assert.is(r.stopReason, 'final');
  assert.is(r.answer, 'The researcher says: Paris.');
  const offered = llm.requests[0]!.tools!.find((x) => x.name === 'agent__researcher');
  assert.is(offered?.description, 'Finds facts on the web', 'the description comes from the sub-agent\'s frontmatter');
  const childPrompt = llm.requests[1]!.messages;
  assert.match(childPrompt[0]!.content, 'You research.', 'the sub-agent\'s own instructions');
  assert.equal(childPrompt.slice(1).map((m) => m.content), ['find the capital of France'], 'it sees the task, not the parent\'s conversation');
  const store = t.kernel.service('sessions');
  const child = spy.runs.find((x) => x.run.agent.name === 'researcher')!;
  assert.ok(child.run.sessionId !== r.sessionId, 'a session of its own');
  assert.is((await store.get(child.run.sessionId))?.parentSessionId, r.sessionId);
  assert.is(child.run.parentRunId, r.runId, 'the child run names the parent run');
  assert.equal((await store.messages(child.run.sessionId)).map((m) => m.message.content), ['find the capital of France', 'Paris.']);
  const parentTool = (await store.messages(r.sessionId)).find((m) => m.message.role === 'tool')!.message;
  assert.is(parentTool.content, 'Paris.');
  assert.equal((await store.list({ parentSessionId: r.sessionId })).items.map((s) => s.id), [child.run.sessionId]);
  assert.is(r.budget.tokens, r.usage.inputTokens + r.usage.outputTokens + child.result.usage.inputTokens + child.result.usage.outputTokens,
    'the parent\'s budget holds the child\'s tokens too');
  await t.close();
});

test('a child session per call, and a sub-agent that stops short is an error result naming its session', async () => {
  const llm = scripted([
    delegate('helper', 'one'), { text: 'first answer' },
    delegate('helper', 'two'), { toolCalls: [{ name: 'echo', args: { text: 'x' } }] }, { text: 'out of steps' },
    { text: 'done' },
  ]);
  const t = await testKernel({
    plugins: [llm, toolsPlugin(echoTool())],
    agents: { lead: { agents: ['helper'], tools: [] }, helper: { tools: ['echo'], settings: { max_iterations: 1 } } },
  });
  const r = await t.service.process({ agent: 'lead', message: 'go' });
  assert.is(r.answer, 'done');
  const children = (await t.kernel.service('sessions').list({ parentSessionId: r.sessionId })).items;
  assert.is(children.length, 2, 'one child session per call');
  const results = (await t.kernel.service('sessions').messages(r.sessionId)).map((m) => m.message).filter((m) => m.role === 'tool');
  assert.is(results[0]!.content, 'first answer');
  assert.is(results[1]!.isError, true);
  assert.match(results[1]!.content, /^Sub-agent "helper" stopped \(limit: stopped at max_iterations \(1 model calls\)\); its session is /);
  assert.match(results[1]!.content, 'Its answer so far:\nout of steps');
  const second = children.find((c) => results[1]!.content.includes(c.id));
  assert.ok(second, 'the result names the child session');
  await t.close();
});

test('a `.` in a sub-agent\'s name becomes `_` in its tool name, which still runs that agent', async () => {
  const spy = runSpy();
  const llm = scripted([delegate('web_search', 'look'), { text: 'found' }, { text: 'ok' }]);
  const t = await testKernel({ plugins: [llm, spy], agents: { lead: { agents: ['web.search'], tools: [] }, 'web.search': { tools: [] } } });
  const r = await t.service.process({ agent: 'lead', message: 'go' });
  assert.equal(toolNames(llm.requests[0]!.tools), ['agent__web_search']);
  assert.is(r.answer, 'ok');
  assert.ok(spy.runs.some((x) => x.run.agent.name === 'web.search' && x.result.answer === 'found'));
  await t.close();
});

test('budget: a sub-agent cannot spend past what its caller has left of max_tool_calls', async () => {
  const echo = echoTool();
  const echoCall = { toolCalls: [{ name: 'echo', args: { text: 'e' } }] };
  const llm = scripted([delegate('worker', 'work'), echoCall, echoCall, { text: 'worker stopped' }, { text: 'lead stopped' }]);
  const t = await testKernel({
    plugins: [llm, toolsPlugin(echo)],
    agents: { lead: { agents: ['worker'], tools: [], settings: { max_tool_calls: 3 } }, worker: { tools: ['echo'], settings: { max_tool_calls: 50 } } },
  });
  const r = await t.service.process({ agent: 'lead', message: 'go' });
  // The lead's 3 tool calls: agent__worker and the worker's two echoes; then the worker stops before
  // its next model call (the tool-less final one aside), and so does the lead.
  assert.is(echo.calls.length, 2);
  assert.is(r.budget.toolCalls, 3);
  assert.is(r.stopReason, 'budget');
  assert.equal(r.limit, { name: 'max_tool_calls', value: 3 });
  const tool = (await t.kernel.service('sessions').messages(r.sessionId)).find((m) => m.message.role === 'tool')!.message;
  assert.match(tool.content, 'stopped at max_tool_calls (3 tool calls) (the calling agent\'s budget)');
  assert.match(tool.content, 'worker stopped');
  assert.is(r.answer, 'lead stopped');
  await t.close();
});

test('budget: the child\'s tokens count against the caller\'s max_tokens', async () => {
  const big = { usage: { inputTokens: 400, outputTokens: 100 } };
  const llm = scripted([
    { ...delegate('worker', 'work'), usage: { inputTokens: 10, outputTokens: 10 } },
    { toolCalls: [{ name: 'echo', args: { text: 'e' } }], ...big },
    { toolCalls: [{ name: 'echo', args: { text: 'e' } }], ...big },
    { text: 'worker final', usage: { inputTokens: 1, outputTokens: 1 } },
    { text: 'lead final', usage: { inputTokens: 1, outputTokens: 1 } },
  ]);
  const t = await testKernel({
    plugins: [llm, toolsPlugin(echoTool())],
    agents: { lead: { agents: ['worker'], tools: [], settings: { max_tokens: 700 } }, worker: { tools: ['echo'] } },
  });
  const r = await t.service.process({ agent: 'lead', message: 'go' });
  // 20 (lead) + 500 + 500 (worker) = 1020 ≥ 700: the worker stops before its third model call
  // (then its tool-less final call), and the lead stops before its second.
  assert.is(llm.requests.length, 5);
  assert.equal(llm.requests[3]!.tools, [], 'the worker\'s last call was the tool-less final one');
  assert.is(r.stopReason, 'budget');
  assert.equal(r.limit, { name: 'max_tokens', value: 700 });
  await t.close();
});

test('depth: max_agent_depth 1 offers agent__ tools to the top agent only; the settings of a sub-agent narrow it further', async () => {
  const llm = scripted([delegate('b', 'go on'), { text: 'b done' }, { text: 'a done' }, delegate('b', 'again'), { text: 'b again' }, { text: 'a again' }]);
  const agents = { a: { agents: ['b'], tools: [], settings: { max_agent_depth: 1 } }, b: { agents: ['c'], tools: [] }, c: { tools: [] } };
  const t = await testKernel({ plugins: [llm], agents });
  await t.service.process({ agent: 'a', message: 'go' });
  assert.equal(toolNames(llm.requests[0]!.tools), ['agent__b']);
  assert.equal(toolNames(llm.requests[1]!.tools), [], 'b, one level down, is not offered agent__c');
  await t.close();
  // The default depth (2) lets b call c, unless b's own setting says 0.
  const llm2 = scripted([delegate('b', 'x'), { text: 'b' }, { text: 'a' }]);
  const t2 = await testKernel({ plugins: [llm2], agents: { ...agents, a: { agents: ['b'], tools: [] }, b: { agents: ['c'], tools: [], settings: { max_agent_depth: 0 } } } });
  await t2.service.process({ agent: 'a', message: 'go' });
  assert.equal(toolNames(llm2.requests[0]!.tools), ['agent__b']);
  assert.equal(toolNames(llm2.requests[1]!.tools), [], 'b\'s own max_agent_depth: 0 narrows it');
  await t2.close();
  const llm3 = scripted([delegate('b', 'x'), { text: 'b' }, { text: 'a' }]);
  const t3 = await testKernel({ plugins: [llm3], agents: { ...agents, a: { agents: ['b'], tools: [] } } });
  await t3.service.process({ agent: 'a', message: 'go' });
  assert.equal(toolNames(llm3.requests[1]!.tools), ['agent__c'], 'at the default depth b may call c');
  await t3.close();
});

test('a cycle (a → b → a, and a → a) is refused naming the path and the file, when its tools are listed and when it runs', async () => {
  const t = await testKernel({
    plugins: [scripted([])],
    agents: { a: { agents: ['b'], tools: [] }, b: { agents: ['a'], tools: [] }, self: { agents: ['self'], tools: [] } },
  });
  for (const [name, path, file] of [['a', 'a → b → a', 'agents/b/AGENT.md'], ['b', 'b → a → b', 'agents/a/AGENT.md'], ['self', 'self → self', 'agents/self/AGENT.md']] as const) {
    const error = await t.kernel.toolsFor(await t.kernel.agents.load(name)).then(() => undefined, (e: unknown) => e);
    assert.ok(isOryxError(error), `${name} is refused`);
    assert.is(error.code, 'ORYX_E_AGENT_CYCLE');
    assert.match(error.message, `agents: ${path} is a cycle`);
    assert.match(error.message, file);
  }
  const run = await t.service.process({ agent: 'a', message: 'hi' }).then(() => undefined, (e: unknown) => e);
  assert.ok(isOryxError(run) && run.code === 'ORYX_E_AGENT_CYCLE', 'a run of it is refused too');
  await t.close();
});

test('an unknown name in agents: is an error with the closest agent', async () => {
  const t = await testKernel({ plugins: [scripted([])], agents: { lead: { agents: ['reseacher'], tools: [] }, researcher: { tools: [] } } });
  const error = await t.kernel.toolsFor(await t.kernel.agents.load('lead')).then(() => undefined, (e: unknown) => e);
  assert.ok(isOryxError(error));
  assert.is(error.code, 'ORYX_E_AGENT_INVALID');
  assert.match(error.message, /agents\/lead\/AGENT.md: agents: no agent "reseacher" \(did you mean "researcher"\?\)/);
  await t.close();
});

test('the sub-agent\'s own tool list applies: it cannot use a tool only its caller has', async () => {
  const secret: Tool & { calls: number } = {
    name: 'secret', description: 'Only the lead may', source: 'plugin', calls: 0,
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    async execute() { secret.calls++; return 'the secret'; },
  };
  const llm = scripted([delegate('helper', 'use secret'), { toolCalls: [{ name: 'secret', args: {} }] }, { text: 'could not' }, { text: 'ok' }]);
  const t = await testKernel({
    plugins: [llm, toolsPlugin(secret, echoTool())],
    agents: { lead: { agents: ['helper'], tools: ['secret'] }, helper: { tools: ['echo'] } },
  });
  const r = await t.service.process({ agent: 'lead', message: 'go' });
  assert.equal(toolNames(llm.requests[0]!.tools), ['agent__helper', 'secret']);
  assert.equal(toolNames(llm.requests[1]!.tools), ['echo'], 'the helper is offered its own tools only');
  assert.is(secret.calls, 0, 'the helper\'s call of secret did not run');
  const child = (await t.kernel.service('sessions').list({ parentSessionId: r.sessionId })).items[0]!;
  const result = (await t.kernel.service('sessions').messages(child.id)).find((m) => m.message.role === 'tool')!.message;
  assert.match(result.content, 'Unknown tool "secret"');
  await t.close();
});

test('aborting the parent aborts the sub-agent in flight; both stores stay consistent', async () => {
  const spy = runSpy();
  const llm = scripted([delegate('slow', 'wait'), { text: 'never', delayMs: 30_000 }]);
  const t = await testKernel({ plugins: [llm, spy], agents: { lead: { agents: ['slow'], tools: [] }, slow: { tools: [] } } });
  const controller = new AbortController();
  const running = t.service.process({ agent: 'lead', message: 'go', signal: controller.signal });
  while (llm.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
  controller.abort();
  const r = await running;
  assert.is(r.stopReason, 'aborted');
  const child = spy.runs.find((x) => x.run.agent.name === 'slow')!;
  assert.is(child.result.stopReason, 'aborted', 'the child run ended aborted');
  const parentMessages = (await t.kernel.service('sessions').messages(r.sessionId)).map((m) => m.message);
  assert.is(parentMessages.at(-1)!.role, 'tool', 'the agent__slow call has its result');
  assert.match(parentMessages.at(-1)!.content, /abort/i);
  await t.close();
});

test.run();
