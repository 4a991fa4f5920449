// Prompts a provider can cache (issue 37): each request begins with the exact bytes of the one
// before, within a run and across a session's turns, with the features that add prompt content
// (memory saved mid-run, skills, sub-agents, an approval resumed). Measured with prefixKept on
// what the scripted provider received: tool definitions, then each message, in order.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChatRequest } from '@oryxos/provider-spec';
import { echoTool, prefixKept, prefixMisses, requestText, scripted, testKernel, toolsPlugin, type TestKernel } from '@oryxos/kernel/testing';
import approvals from '@oryxos/plugin-approvals';
import memory from '@oryxos/plugin-memory';
import sqlite from '@oryxos/plugin-sqlite';
import subagents from '@oryxos/plugin-subagents';

const open: TestKernel[] = [];
const start = async (options: Parameters<typeof testKernel>[0]) => { const t = await testKernel(options); open.push(t); return t; };
test.after.each(async () => { for (const t of open.splice(0)) await t.close(); });

/** `n` echo calls, one a step, then an answer. */
const toolSteps = (n: number, tag = '') => [...Array.from({ length: n }, (_, i) => ({ toolCalls: [{ name: 'echo', args: { text: `${tag}step ${i + 1} ${'x'.repeat(200)}` } }] })), { text: `${tag}done` }];

test('prefixKept: the share of each request the next one repeats from its first byte', () => {
  const req = (...contents: string[]): Pick<ChatRequest, 'tools' | 'messages'> => ({ tools: [], messages: contents.map((content) => ({ role: 'user', content })) });
  assert.equal(prefixKept([req('a'), req('a', 'b')]), [1]);
  const [kept] = prefixKept([req('aaaa', 'bbbb'), req('aaaa', 'cccc')]);
  assert.ok(kept! > 0.5 && kept! < 0.95, String(kept));
  assert.equal(prefixKept(['abcd', 'abxx', 'abxxyy']), [0.5, 1]);
  assert.equal(prefixMisses(['abcd', 'abxx', 'abxxyy']), ['1→2: 0.500']);
});

test('within one run of 5 tool steps: every request starts with the whole request before it', async () => {
  const llm = scripted(toolSteps(5));
  const t = await start({ plugins: [llm, toolsPlugin(echoTool())], agents: { assistant: { tools: ['echo'], body: 'You help.' } } });
  const r = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(r.stopReason, 'final');
  assert.is(llm.requests.length, 6);
  assert.equal(prefixMisses(llm.requests), []);
});

test('16 turns with a full history window (max_history_turns 10): at most one pair in five keeps under 99% (the block trims)', async () => {
  const llm = scripted(Array.from({ length: 16 }, (_, i) => ({ text: `answer ${i + 1} ${'y'.repeat(300)}` })));
  const t = await start({ plugins: [llm], agents: { assistant: { settings: { max_history_turns: 10 } } } });
  let session: string | undefined;
  for (let i = 1; i <= 16; i++) session = (await t.service.process({ agent: 'assistant', session, message: `question ${i} ${'q'.repeat(200)}` })).sessionId;
  const misses = prefixMisses(llm.requests);
  // The window moves in blocks of half its size: at turn 11 (turns 1–5 leave) and 16 (6–10).
  assert.equal(misses.map((m) => m.split(':')[0]), ['10→11', '15→16'], misses.join('\n'));
  assert.ok(misses.length <= (llm.requests.length - 1) / 5);
});

test('30 turns over context_tokens: the budget trims in blocks too, not a turn every turn', async () => {
  const llm = scripted(Array.from({ length: 30 }, (_, i) => ({ text: `answer ${i + 1} ${'y'.repeat(1_000)}` })));
  // About 1,220 characters a turn against a 4,000-token (16,000-character) budget: full by turn 14.
  const t = await start({ plugins: [llm], agents: { assistant: { settings: { context_tokens: 4_000 } } } });
  let session: string | undefined;
  for (let i = 1; i <= 30; i++) session = (await t.service.process({ agent: 'assistant', session, message: `question ${i} ${'q'.repeat(200)}` })).sessionId;
  const misses = prefixMisses(llm.requests);
  assert.ok(misses.length >= 1, 'the budget was reached (else this test measures nothing)');
  assert.ok(misses.length <= (llm.requests.length - 1) / 5, misses.join('\n'));
  // Once full, a cut takes a quarter of the budget (about three turns here), never a turn a turn.
  const at = misses.map((m) => Number(m.split('→')[0]));
  assert.ok(at.every((n, i) => i === 0 || n - at[i - 1]! >= 3), misses.join('\n'));
});

test('a tokenizer of 3 characters a token: what the kernel learnt of it holds from run to run, so a budget cut stays put', async () => {
  const three = (r: ChatRequest) => ({ inputTokens: Math.ceil(requestText(r).length / 3) });
  const llm = scripted(Array.from({ length: 30 }, (_, i) => [
    (r: ChatRequest) => ({ toolCalls: [{ name: 'echo', args: { text: `step ${i} ${'z'.repeat(400)}` } }], usage: three(r) }),
    (r: ChatRequest) => ({ text: `answer ${i} ${'y'.repeat(600)}`, usage: three(r) }),
  ]).flat());
  const t = await start({ plugins: [llm, toolsPlugin(echoTool())], agents: { assistant: { tools: ['echo'], settings: { context_tokens: 4_000 } } } });
  let session: string | undefined;
  for (let i = 1; i <= 30; i++) session = (await t.service.process({ agent: 'assistant', session, message: `question ${i}` })).sessionId;
  const misses = prefixMisses(llm.requests);
  // Each run starting again at four characters a token put the cut back at its first step and
  // took it again at its second: 43 of 59 pairs missed.
  assert.ok(misses.length >= 5 && misses.length <= (llm.requests.length - 1) / 3, misses.join('\n'));
});

test('memory: a save mid-run leaves the run\'s prefix alone; the next run sees it (one miss, at the memory section)', async () => {
  const llm = scripted([
    { toolCalls: [{ name: 'save_memory', args: { text: 'The user is Ana', zone: 'core' } }] },
    ...toolSteps(3), { text: 'next run' },
  ]);
  const t = await start({ plugins: [llm, toolsPlugin(echoTool()), memory()], agents: { assistant: { tools: ['echo', 'save_memory'] } } });
  const r = await t.service.process({ agent: 'assistant', message: 'remember' });
  assert.equal(prefixMisses(llm.requests.slice(0, 5)), []);
  await t.service.process({ agent: 'assistant', session: r.sessionId, message: 'again' });
  assert.match(llm.requests[5]!.messages[0]!.content, 'The user is Ana', 'the next run sees the save');
  assert.equal(prefixMisses(llm.requests).length, 1);
});

test('memory checkpoints of turns leaving the window: written before the run reads its memory, so a window move is still one miss', async () => {
  const llm = scripted(Array.from({ length: 16 }, (_, i) => ({ text: `answer ${i + 1} ${'y'.repeat(300)}` })));
  const t = await start({ plugins: [llm, memory()], agents: { assistant: { settings: { max_history_turns: 10 } } } });
  let session: string | undefined;
  for (let i = 1; i <= 16; i++) session = (await t.service.process({ agent: 'assistant', session, message: `question ${i}` })).sessionId;
  assert.match(llm.requests[15]!.messages[0]!.content, 'Earlier conversation: the user asked "question 6"', 'the turns that left are checkpointed');
  assert.equal(prefixMisses(llm.requests).map((m) => m.split(':')[0]), ['10→11', '15→16']);
});

test('skills: the skill index stays put from step to step and turn to turn', async () => {
  const llm = scripted([...toolSteps(4), { text: 'second turn' }]);
  const t = await start({ plugins: [llm, toolsPlugin(echoTool())], agents: { assistant: { tools: ['echo'] } } });
  const skills = path.join(t.dir, '.oryxos', 'agents', 'assistant', 'skills');
  await mkdir(skills, { recursive: true });
  await writeFile(path.join(skills, 'deploy.md'), '---\ndescription: How to deploy\n---\nRun the deploy script.\n');
  await writeFile(path.join(skills, 'review.md'), '---\ndescription: How to review a change\n---\nRead the diff.\n');
  const r = await t.service.process({ agent: 'assistant', message: 'go' });
  await t.service.process({ agent: 'assistant', session: r.sessionId, message: 'and?' });
  assert.match(llm.requests[0]!.messages[0]!.content, '- deploy: How to deploy');
  assert.equal(prefixMisses(llm.requests), []);
});

test('sub-agents: the caller\'s requests and the sub-agent\'s each keep their prefix, the caller\'s across the delegation', async () => {
  const behave = (req: ChatRequest) => {
    const lead = req.messages[0]!.content.includes('You lead.');
    const last = req.messages.at(-1)!;
    const steps = req.messages.filter((m) => m.role === 'tool').length;
    if (lead) return last.role === 'user' || steps < 2 ? { toolCalls: [{ name: steps === 0 ? 'agent__helper' : 'echo', args: steps === 0 ? { task: 'look it up' } : { text: 'x' } }] } : { text: 'lead done' };
    return steps < 3 ? { toolCalls: [{ name: 'echo', args: { text: `helper ${steps}` } }] } : { text: 'helper done' };
  };
  const llm = scripted(Array.from({ length: 12 }, () => behave));
  const t = await start({
    plugins: [llm, toolsPlugin(echoTool()), subagents()],
    agents: { lead: { agents: ['helper'], tools: ['echo'], body: 'You lead.' }, helper: { description: 'Helps', tools: ['echo'], body: 'You help.' } },
  });
  const r = await t.service.process({ agent: 'lead', message: 'go' });
  assert.is(r.answer, 'lead done');
  const lead = llm.requests.filter((q) => q.messages[0]!.content.includes('You lead.'));
  const helper = llm.requests.filter((q) => !q.messages[0]!.content.includes('You lead.'));
  assert.equal([lead.length, helper.length], [3, 4]);
  assert.equal(prefixMisses(lead), []);
  assert.equal(prefixMisses(helper), []);
});

test('an approval resumed through runs.continue: the resumed request extends the one that suspended', async () => {
  const llm = scripted([{ toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'push' } }] }, { text: 'pushed' }]);
  const t = await start({ plugins: [llm, toolsPlugin(echoTool()), sqlite(), approvals()], agents: { assistant: { tools: ['echo'], approve: ['echo'] } } });
  const paused = await t.service.process({ agent: 'assistant', message: 'go' });
  assert.is(paused.stopReason, 'suspended');
  await t.kernel.service('approvals').decide(String(paused.suspended![0]!.data!.approvalId), { decision: 'approve', by: 'test' });
  const resumed = await t.service.continue(paused.runId);
  assert.is(resumed.stopReason, 'final');
  assert.is(llm.requests.length, 2);
  assert.equal(prefixMisses(llm.requests), []);
  assert.is(prefixKept(llm.requests)[0], 1);
});

test.run();
