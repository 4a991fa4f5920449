import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { STAGE, type Plugin, type Prompt, type Tool } from '@oryxos/kernel';
import { isOryxError, type ChatRequest } from '@oryxos/provider-spec';
import { scripted, toolsPlugin, type TestKernel } from '@oryxos/kernel/testing';
import memory, { LazyMemoryStore } from '../src/index.ts';
import { parseMemory } from '../src/format.ts';
import { kernelsFor } from './helpers.ts';

const start = kernelsFor(test);

/** Captures every prompt, after the kernel has filled in its report. */
const promptSpy = () => {
  const prompts: Prompt[] = [];
  const plugin: Plugin = {
    name: 'spy', version: '1.0.0', kernel: '^1',
    setup(k) { k.hooks.prepareStep.tapPromise({ stage: STAGE.OBSERVE }, async (p) => { prompts.push(p); return p; }); },
  };
  return { plugin, prompts };
};

const memoryPath = (t: TestKernel) => path.join(t.kernel.config.workspaceDir, 'memory', 'MEMORY.md');
const storeOf = (t: TestKernel) => t.kernel.service('memory') as LazyMemoryStore;
const sessionFile = (t: TestKernel, session: string) => path.join(storeOf(t).sessionDir(session), 'MEMORY.md');
async function writeMemory(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}
const system = (r: ChatRequest) => r.messages[0]!.content;
const requestChars = (r: ChatRequest) => r.messages.reduce((n, m) =>
  n + m.content.length + (m.role === 'assistant' && m.toolCalls ? JSON.stringify(m.toolCalls).length : 0), 0) + JSON.stringify(r.tools).length;

function throws(fn: () => unknown, code: string, field: string): void {
  try {
    fn();
  } catch (error) {
    assert.ok(isOryxError(error));
    assert.is((error as { code: string }).code, code);
    assert.match(`${(error as Error).message} ${(error as { hint?: string }).hint}`, field);
    return;
  }
  assert.unreachable(`expected ${code}`);
}

test('options are validated at once, naming the field', () => {
  throws(() => memory({ budgetChars: 5.5 }), 'ORYX_E_MEMORY_OPTIONS_INVALID', 'budgetChars');
  throws(() => memory({ budgetChars: 100 }), 'ORYX_E_MEMORY_OPTIONS_INVALID', 'budgetChars');
  throws(() => memory({ checkpoint: 'yes' } as never), 'ORYX_E_MEMORY_OPTIONS_INVALID', 'checkpoint');
  throws(() => memory({ budgetchars: 4000 } as never), 'ORYX_E_MEMORY_OPTIONS_INVALID', 'budgetchars');
  throws(() => memory({ coreMaxChars: 5000 }), 'ORYX_E_MEMORY_OPTIONS_INVALID', 'coreMaxChars');
  assert.is(memory().name, 'memory');
  assert.is(memory({ budgetChars: 8000, coreMaxChars: 3000, checkpoint: false }).kernel, '^1');
});

test('provides the memory service and two tools whose schemas come from their argument shapes', async () => {
  const t = await start({ plugins: [scripted([]), memory()] });
  assert.is(t.kernel.serviceOwner('memory'), 'memory');
  const agent = await t.kernel.agents.load('assistant');
  const tools = await t.kernel.toolsFor(agent);
  const save = tools.find((x) => x.name === 'save_memory')!;
  const recall = tools.find((x) => x.name === 'recall_memory')!;
  assert.is(save.source, 'plugin');
  assert.is(save.actions, undefined, 'no sandbox action: the tools only touch MEMORY.md');
  assert.equal(save.inputSchema.required, ['text']);
  assert.equal((save.inputSchema.properties as Record<string, { enum?: string[] }>).zone!.enum, ['archive', 'core']);
  assert.is(save.inputSchema.additionalProperties, false);
  assert.is(save.inputSchema.$schema, undefined);
  assert.equal(recall.inputSchema.required, ['query']);
  assert.match(save.validate!({ text: 'x', zone: 'attic' })!, 'zone');
  assert.match(recall.validate!({ query: 'x', limit: 0 })!, 'limit');
  assert.is(save.validate!({ text: 'ok', zone: 'core' }), undefined);
  // recall only reads: after a crash it may run again; a save is marked before it runs.
  assert.is(recall.idempotent, true);
  assert.is(save.idempotent, undefined);
});

test('Core and Archive are injected as a memory section and the report records it', async () => {
  const llm = scripted([{ text: 'ok' }]);
  const spy = promptSpy();
  const t = await start({ plugins: [llm, memory({ budgetChars: 600 }), spy.plugin], agents: { assistant: { tools: ['recall_memory'] } } });
  const archive = Array.from({ length: 20 }, (_, i) => `- 2025-01-${String(i + 1).padStart(2, '0')}: archived fact ${i} ${'a'.repeat(30)}`);
  await writeMemory(memoryPath(t), `# Memory\n\n## Core\n- 2025-01-01: CORE-FACT the user is Ana\n\n## Archive\n${archive.join('\n')}\n`);
  await t.service.process({ agent: 'assistant', message: 'hi' });
  const sys = system(llm.requests[0]!);
  assert.match(sys, '## Long-term memory');
  assert.match(sys, '- 2025-01-01: CORE-FACT the user is Ana');
  assert.match(sys, 'archived fact 19');
  assert.not.match(sys, 'archived fact 0 ');
  assert.match(sys, 'search them with recall_memory');
  assert.match(sys, '.oryxos/memory/MEMORY.md');
  const report = spy.prompts[0]!.report;
  const injected = report.injected.find((i) => i.section === 'memory')!;
  assert.ok(injected.chars > 0 && injected.chars <= 600, `${injected.chars}`);
  const cut = report.cut.find((c) => c.section === 'memory:archive')!;
  assert.ok(cut.chars > 0);
});

test('no memory section when MEMORY.md is missing or has no entries', async () => {
  const llm = scripted([{ text: 'ok' }, { text: 'ok' }]);
  const t = await start({ plugins: [llm, memory()] });
  await t.service.process({ agent: 'assistant', message: 'hi' });
  await writeMemory(memoryPath(t), '# Memory\n\n## Core\n\n## Archive\n');
  await t.service.process({ agent: 'assistant', message: 'hi' });
  for (const r of llm.requests) assert.not.match(system(r), 'Long-term memory');
});

test('the per-agent file wins over the shared one in the prompt', async () => {
  const llm = scripted([{ text: 'a' }, { text: 'b' }]);
  const t = await start({ plugins: [llm, memory()], agents: { a: { tools: [] }, b: { tools: [] } } });
  await writeMemory(memoryPath(t), '## Core\n- 2025-01-01: SHARED-FACT\n');
  await writeMemory(path.join(t.kernel.config.workspaceDir, 'agents', 'a', 'MEMORY.md'), '## Core\n- 2025-01-01: AGENT-A-FACT\n');
  await t.service.process({ agent: 'a', message: 'hi' });
  await t.service.process({ agent: 'b', message: 'hi' });
  assert.match(system(llm.requests[0]!), 'AGENT-A-FACT');
  assert.not.match(system(llm.requests[0]!), 'SHARED-FACT');
  assert.match(system(llm.requests[1]!), 'SHARED-FACT');
  assert.match(system(llm.requests[1]!), '.oryxos/memory/MEMORY.md');
});

test('memory is read once per run: an edit of MEMORY.md during a run shows in the next run, and every step of the run has the same prefix', async () => {
  let file = '';
  const editMemory: Tool = {
    name: 'edit_memory', description: 'Edits MEMORY.md by hand', source: 'plugin',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    async execute() { await appendFile(file, '- 2025-02-02: HAND-EDITED-DURING-THE-RUN\n'); return 'edited'; },
  };
  const llm = scripted([{ toolCalls: [{ name: 'edit_memory' }] }, { text: 'done' }, { text: 'again' }]);
  const t = await start({ plugins: [llm, memory(), toolsPlugin(editMemory)], agents: { assistant: { tools: ['edit_memory'] } } });
  file = memoryPath(t);
  await writeMemory(file, '# Memory\n\n## Core\n- 2025-01-01: original\n\n## Archive\n');
  const r = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(r.answer, 'done');
  assert.not.match(system(llm.requests[0]!), 'HAND-EDITED');
  assert.is(system(llm.requests[1]!), system(llm.requests[0]!), 'the second step starts with the bytes of the first');
  await t.service.process({ agent: 'assistant', session: r.sessionId, message: 'and now?' });
  assert.match(system(llm.requests[2]!), '- 2025-02-02: HAND-EDITED-DURING-THE-RUN');
});

test('save_memory during a run is in the prompt of the next run, not of this one\'s next step; a full Core is an error telling to archive', async () => {
  const llm = scripted([
    { toolCalls: [{ name: 'save_memory', args: { text: 'The user is Ana', zone: 'core' } }] },
    { toolCalls: [{ name: 'save_memory', args: { text: 'x'.repeat(150), zone: 'core' } }] },
    { toolCalls: [{ name: 'save_memory', args: { text: 'Ana moved to Lyon' } }, { name: 'save_memory', args: { text: 'y', zone: 'attic' } }] },
    { text: 'done' },
    { text: 'next run' },
  ]);
  const t = await start({ plugins: [llm, memory({ coreMaxChars: 100 })], agents: { assistant: { tools: ['save_memory'] } } });
  const first = await t.service.process({ agent: 'assistant', message: 'remember' });
  assert.not.match(system(llm.requests[0]!), 'The user is Ana');
  assert.not.match(system(llm.requests[1]!), 'The user is Ana', 'the run\'s memory stays as it started');
  const full = llm.requests[2]!.messages.at(-1)!;
  assert.is(full.role, 'tool');
  assert.ok(full.role === 'tool' && full.isError);
  assert.match(full.content, 'Core memory is full');
  assert.match(full.content, "zone 'archive'");
  const [saved, bad] = llm.requests[3]!.messages.slice(-2);
  assert.match(saved!.content, 'Saved to the Archive');
  assert.ok(bad!.role === 'tool' && bad!.isError);
  assert.match(bad!.content, 'zone');
  await t.service.process({ agent: 'assistant', session: first.sessionId, message: 'what do you know?' });
  assert.match(system(llm.requests[4]!), ': The user is Ana');
  assert.match(system(llm.requests[4]!), 'Ana moved to Lyon');
  const p = parseMemory(await readFile(memoryPath(t), 'utf8'));
  assert.equal(p.core.map((e) => e.text), ['The user is Ana']);
  assert.equal(p.archive.map((e) => e.text), ['Ana moved to Lyon']);
});

test('recall_memory finds archived entries for the model', async () => {
  const llm = scripted([{ toolCalls: [{ name: 'recall_memory', args: { query: '用户喜欢', limit: 1 } }] }, { text: 'done' }]);
  const t = await start({ plugins: [llm, memory()], agents: { assistant: { tools: ['recall_memory'] } } });
  await writeMemory(memoryPath(t), '## Archive\n- 2025-01-01: 服务器在上海\n- 2025-01-02: 用户喜欢绿茶\n');
  await t.service.process({ agent: 'assistant', message: 'what does the user like?' });
  const result = llm.requests[1]!.messages.at(-1)!;
  assert.match(result.content, '1 archive entry matches');
  assert.match(result.content, '2025-01-02 [agent] (score');
  assert.match(result.content, '用户喜欢绿茶');
  assert.not.match(result.content, '上海');
});

test('the token budget holds with a 1 MB tool output', async () => {
  const big: Tool = {
    name: 'big', description: 'Returns 1 MB', source: 'plugin',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    async execute() { return `START${'y'.repeat(1_000_000 - 8)}END`; },
  };
  // A provider that reports what a 4-characters-per-token tokenizer would count.
  const usage = (r: ChatRequest) => ({ usage: { inputTokens: Math.ceil(requestChars(r) / 4) + 50 } });
  const llm = scripted([(r) => ({ toolCalls: [{ name: 'big' }], ...usage(r) }), (r) => ({ text: 'summarised', ...usage(r) })]);
  const spy = promptSpy();
  const contextTokens = 4000;
  const t = await start({
    plugins: [llm, memory(), toolsPlugin(big), spy.plugin],
    agents: { assistant: { tools: ['big'], settings: { context_tokens: contextTokens, max_tool_output_chars: 2_000_000 } } },
  });
  await writeMemory(memoryPath(t), '## Core\n- 2025-01-01: CORE-STAYS\n');
  const r = await t.service.process({ agent: 'assistant', message: 'read it' });
  assert.is(r.answer, 'summarised');
  const second = llm.requests[1]!;
  assert.ok(requestChars(second) < contextTokens * 4, `${requestChars(second)} chars`);
  const tool = second.messages.find((m) => m.role === 'tool')!;
  assert.match(tool.content, /\[… cut [\d,]+ of 1,000,000 characters to fit the context budget …\]/);
  assert.ok(tool.content.startsWith('START') && tool.content.endsWith('END'));
  assert.match(system(second), 'CORE-STAYS');
  assert.ok(spy.prompts[1]!.report.cut.some((c) => c.section === 'tool:big' && c.chars > 900_000));
});

test("turns leaving the window are checkpointed once into their session's memory, without tool chatter", async () => {
  const echo: Tool = {
    name: 'echo', description: 'Echo', source: 'plugin',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    async execute(args) { return `TOOL-CHATTER ${args.text}`; },
  };
  const llm = scripted([
    { toolCalls: [{ name: 'echo', args: { text: 'x' } }] }, { text: 'answer one' },
    { text: 'answer two' }, { text: 'answer three' }, { text: 'answer four' },
  ]);
  const t = await start({
    plugins: [llm, memory(), toolsPlugin(echo)],
    agents: { assistant: { tools: ['echo'], settings: { max_history_turns: 2 } } },
  });
  const runs = [];
  let session: string | undefined;
  for (const ask of ['ask one', 'ask two', 'ask three', 'ask four']) {
    const r = await t.service.process({ agent: 'assistant', session, message: ask });
    session = r.sessionId;
    runs.push(r);
  }
  const text = await readFile(sessionFile(t, session!), 'utf8');
  const archive = parseMemory(text).archive.map((e) => e.text);
  assert.equal(archive, [
    `Earlier conversation: the user asked "ask one"; the answer was "answer one" (session ${session} #1)`,
    `Earlier conversation: the user asked "ask two"; the answer was "answer two" (session ${session} #5)`,
  ]);
  assert.not.match(text, 'TOOL-CHATTER');
  assert.match(text, /- \d{4}-\d{2}-\d{2}: Earlier conversation/);
  await readFile(memoryPath(t), 'utf8').then(() => assert.unreachable('the agent memory stays untouched'), () => {});
  assert.match(system(llm.requests.at(-1)!), `the answer was "answer two" (session ${session} #5)`);

  // The same turns leaving again (for the token budget, or in a later run) add nothing.
  const stored = await t.kernel.service('sessions').messages(session!);
  const agent = await t.kernel.agents.load('assistant');
  await t.kernel.hooks.trimContext.promise({
    run: { runId: 'r', agent, sessionId: session!, provider: 'scripted', model: 'm', iteration: 1, signal: new AbortController().signal, startedAt: new Date().toISOString() },
    reason: 'budget',
    turns: [{ firstSeq: 1, messages: stored.slice(0, 4).map((s) => s.message) }, { firstSeq: 5, messages: stored.slice(4, 6).map((s) => s.message) }],
  });
  assert.is(await readFile(sessionFile(t, session!), 'utf8'), text);
});

test('turns dropped for the token budget are checkpointed once, across runs that drop them again', async () => {
  const llm = scripted(Array.from({ length: 6 }, (_, i) => ({ text: `answer ${i + 1}` })));
  const t = await start({
    plugins: [llm, memory({ budgetChars: 1000 })],
    agents: { assistant: { tools: [], settings: { context_tokens: 1000, max_history_turns: 50 } } },
  });
  let session: string | undefined;
  for (let i = 1; i <= 6; i++) {
    const r = await t.service.process({ agent: 'assistant', session, message: `ask ${i} ${'q'.repeat(1500)}` });
    session = r.sessionId;
  }
  const last = llm.requests.at(-1)!;
  const sent = new Set(last.messages.filter((m) => m.role === 'user').map((m) => m.content.split(' ')[1]));
  const dropped = [1, 2, 3, 4, 5, 6].filter((i) => !sent.has(String(i)));
  assert.ok(dropped.length >= 3, `dropped ${dropped}`);
  const archive = parseMemory(await readFile(sessionFile(t, session!), 'utf8')).archive.map((e) => e.text);
  assert.equal(archive.map((a) => /the user asked "ask (\d+)/.exec(a)![1]).map(Number), dropped);
  for (const [k, i] of dropped.entries()) {
    assert.match(archive[k]!, `the answer was "answer ${i}" (session ${session} #${2 * i - 1})`);
    assert.ok(archive[k]!.length < 800, 'the ask is shortened');
  }
});

test('checkpoint: false writes nothing; a failing checkpoint or unreadable file never breaks the run', async () => {
  const llm = scripted([{ text: '1' }, { text: '2' }]);
  const t = await start({ plugins: [llm, memory({ checkpoint: false })], agents: { assistant: { tools: [], settings: { max_history_turns: 1 } } } });
  const r1 = await t.service.process({ agent: 'assistant', message: 'one' });
  await t.service.process({ agent: 'assistant', session: r1.sessionId, message: 'two' });
  await readFile(sessionFile(t, r1.sessionId), 'utf8').then(() => assert.unreachable('no file expected'), () => {});

  const llm2 = scripted([{ text: '1' }, { text: '2' }]);
  const spy = promptSpy();
  const t2 = await start({ plugins: [llm2, memory(), spy.plugin], agents: { assistant: { tools: [], settings: { max_history_turns: 1 } } } });
  await mkdir(memoryPath(t2), { recursive: true }); // a folder where MEMORY.md should be
  await writeFile(path.join(t2.dir, 'not-a-folder'), '');
  storeOf(t2).sessionsDir = path.join(t2.dir, 'not-a-folder', 'sessions'); // no session memory can be written
  const a = await t2.service.process({ agent: 'assistant', message: 'one' });
  const b = await t2.service.process({ agent: 'assistant', session: a.sessionId, message: 'two' });
  assert.is(a.stopReason, 'final');
  assert.is(b.stopReason, 'final');
  assert.ok(spy.prompts[0]!.report.cut.some((c) => c.section === 'memory' && c.reason.includes('not injected')));
  assert.ok(t2.warnings.some((w) => w.includes('could not checkpoint 1 turn(s)')), t2.warnings.join('\n'));
});

test.run();
