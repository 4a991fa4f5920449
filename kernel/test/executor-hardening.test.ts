// What a model or a tool sends can neither crash the loop, flood the session, nor leak a
// registered secret: every throw becomes an audited error result, one cap holds for every
// tool, calls past max_tool_calls_per_step do not run, and secrets are masked.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { escapeControls } from '@oryxos/plugin-kit';
import { STAGE, type Plugin, type Tool, type ToolResult } from '@oryxos/kernel';
import type { ToolMessage } from '@oryxos/provider-spec';
import { scripted, testKernel } from '@oryxos/kernel/testing';

const schema = { type: 'object', properties: { n: { type: 'number' } } };
const tool = (name: string, execute: Tool['execute'], extra: Partial<Tool> = {}): Tool => ({ name, description: name, source: 'plugin', inputSchema: schema, execute, ...extra });
const plugin = (setup: Plugin['setup']): Plugin => ({ name: 'approval', version: '1.0.0', kernel: '^1', setup });
const toolMessages = (messages: { role: string }[]) => messages.filter((m): m is ToolMessage => m.role === 'tool');

/** Runs `calls` in one response, then a final answer; returns what afterTool saw, the stored messages and the model's second request. */
async function run(tools: Tool[], calls: { name: string; args?: Record<string, unknown> }[], options: { settings?: Record<string, number>; setup?: Plugin['setup'] } = {}) {
  const llm = scripted([{ toolCalls: calls }, { text: 'recovered' }]);
  const seen: { result: ToolResult; status: string }[] = [];
  const k = await testKernel({
    plugins: [llm, plugin((kernel) => {
      tools.forEach((t) => kernel.registerTool(t));
      kernel.hooks.afterTool.tapPromise({ stage: STAGE.OBSERVE }, async (result, info) => { seen.push({ result, status: info.status }); return result; });
      options.setup?.(kernel);
    })],
    agents: { assistant: { tools: ['*'], ...(options.settings ? { settings: options.settings } : {}) } },
  });
  const result = await k.service.process({ agent: 'assistant', message: 'go' });
  const stored = (await k.kernel.service('sessions').messages(result.sessionId)).map((s) => s.message);
  await k.close();
  return { result, seen, stored, sent: llm.requests[1]?.messages ?? [], kernel: k.kernel };
}

test('a beforeTool tap that throws: an error result the model sees, recorded by afterTool; the loop goes on', async () => {
  const r = await run([tool('t', async () => 'ran')], [{ name: 't', args: {} }], {
    setup: (k) => k.hooks.beforeTool.tapPromise(async () => { throw new Error('approval service down'); }),
  });
  assert.is(r.result.stopReason, 'final');
  assert.is(r.seen.length, 1);
  assert.is(r.seen[0]!.status, 'error');
  assert.match(r.seen[0]!.result.content, 'approval service down');
  assert.match(toolMessages(r.sent)[0]!.content, 'Plugin "approval" failed in hook "beforeTool"');
});

test('an afterTool tap that throws: the failure becomes the result and the observers still record it', async () => {
  const r = await run([tool('t', async () => 'ran')], [{ name: 't', args: {} }], {
    setup: (k) => {
      let first = true;
      k.hooks.afterTool.tapPromise(async (result) => { if (first) { first = false; throw new Error('bad redaction'); } return result; });
    },
  });
  assert.is(r.result.stopReason, 'final');
  assert.equal(r.seen.map((s) => s.status), ['error']);
  assert.match(r.seen[0]!.result.content, 'bad redaction');
  assert.is(toolMessages(r.stored)[0]!.isError, true);
});

test('a validate() that throws, a tool that returns nothing: error results, not LLM failures', async () => {
  const r = await run([
    tool('v', async () => 'ran', { validate: () => { throw new TypeError('cannot read properties of undefined'); } }),
    tool('nothing', async () => undefined as unknown as string),
  ], [{ name: 'v', args: {} }, { name: 'nothing', args: {} }]);
  assert.is(r.result.stopReason, 'final');
  assert.equal(r.seen.map((s) => s.status), ['error', 'error']);
  assert.match(r.seen[0]!.result.content, 'v failed: cannot read properties of undefined');
  assert.match(r.seen[1]!.result.content, 'nothing returned no text result');
});

test('calls past max_tool_calls_per_step get an error result and do not run; every call has its result', async () => {
  let ran = 0;
  const calls = Array.from({ length: 3000 }, (_, i) => ({ name: 'count', args: { n: i } }));
  const r = await run([tool('count', async () => { ran++; return 'counted'; })], calls);
  assert.is(ran, 16);
  const results = toolMessages(r.sent);
  assert.is(results.length, 3000);
  assert.is(results.filter((m) => m.content === 'counted').length, 16);
  assert.match(results[16]!.content, 'at most 16 tool calls of one response run (max_tool_calls_per_step)');
  assert.is(results[2999]!.content, 'Not run (over max_tool_calls_per_step).');
  assert.ok(results.slice(16).every((m) => m.isError));
  // The skipped calls cost the next prompt little: far less than their own call records.
  assert.ok(results.reduce((n, m) => n + m.content.length, 0) < 3000 * 60);
  assert.is(r.seen.length, 3000, 'each skipped call is audited too');
});

test('max_tool_calls_per_step is an agent setting', async () => {
  let ran = 0;
  await run([tool('count', async () => { ran++; return 'ok'; })], Array.from({ length: 5 }, () => ({ name: 'count', args: {} })), { settings: { max_tool_calls_per_step: 2 } });
  assert.is(ran, 2);
});

test('one output cap for every tool: the model sees and the session stores the cut result; the full size is recorded', async () => {
  const big = `HEAD${'x'.repeat(5_000_000)}TAIL`;
  const r = await run([tool('big', async () => big)], [{ name: 'big', args: {} }]);
  const sent = toolMessages(r.sent)[0]!.content;
  assert.ok(sent.length <= 20_000, `${sent.length} characters`);
  assert.ok(sent.startsWith('HEAD') && sent.endsWith('TAIL'));
  assert.match(sent, 'characters over max_tool_output_chars');
  assert.is(toolMessages(r.stored)[0]!.content, sent);
  assert.is(r.seen[0]!.result.fullChars, big.length);
  const raised = await run([tool('big', async () => big)], [{ name: 'big', args: {} }], { settings: { max_tool_output_chars: 6_000_000 } });
  assert.is(toolMessages(raised.stored)[0]!.content, big);
  assert.is(raised.seen[0]!.result.fullChars, undefined);
});

test('registered secrets are masked in tool results, stored messages and run errors', async () => {
  const secret = 'tok-1234567890abcdef';
  const llm = scripted([{ toolCalls: [{ name: 'leak', args: {} }] }, { error: new Error(`upstream said ${secret} is wrong`) }]);
  const k = await testKernel({
    plugins: [llm, plugin((kernel) => {
      kernel.secrets.add(secret);
      kernel.registerTool(tool('leak', async () => `env: TOKEN=${secret}`));
    })],
    agents: { assistant: { tools: ['*'] } },
  });
  const result = await k.service.process({ agent: 'assistant', message: `my ${secret}` });
  const stored = (await k.kernel.service('sessions').messages(result.sessionId)).map((s) => s.message);
  await k.close();
  assert.is(llm.requests[1]!.messages.at(-1)!.content, 'env: TOKEN=***');
  for (const m of stored) assert.not.match(m.content, secret);
  assert.is(stored[0]!.content, 'my ***');
  assert.is(result.stopReason, 'error');
  assert.not.match(result.error!.message, secret);
});

test('the kernel log masks secrets and keeps one entry on one line', async () => {
  const lines: string[] = [];
  const { Kernel, resolveConfig } = await import('../src/index.ts');
  const kernel = new Kernel({ config: resolveConfig({ plugins: [] }, process.cwd()), logger: { debug() {}, info() {}, warn: (m) => lines.push(m) } });
  kernel.secrets.add('hunter2hunter2');
  kernel.log.warn('password hunter2hunter2\nweb admin-forged GET / 200\x1b[2K');
  assert.equal(lines, ['password ***\\x0aweb admin-forged GET / 200\\x1b[2K']);
});

test('escapeControls: C0, C1, DEL and bidi controls are shown, newline and tab kept unless oneLine', () => {
  assert.is(escapeControls('\x1b]0;t\x07a\tb\nc\r\x7f\u009b\u202e'), '\\x1b]0;t\\x07a\tb\nc\\x0d\\x7f\\x9b\\u202e');
  assert.is(escapeControls('a\nb\tc', { oneLine: true }), 'a\\x0ab\\x09c');
  assert.is(escapeControls('plain ünïcödé ✓'), 'plain ünïcödé ✓');
});

test.run();
