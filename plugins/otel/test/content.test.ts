// Over OTLP/JSON: a model call retried once (the retry an event on its one `chat` span), usage
// with cache and reasoning figures, a finish reason the conventions have no word for, a failed
// call and run as errors; and with captureContent, the messages, tool arguments and results in
// the conventions' JSON shapes, every registered secret masked, the `redact` patterns applied,
// long content cut.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Plugin, Tool } from '@oryxos/kernel';
import { echoTool, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import { OryxError, type ChatRequest, type ChatResponse, type Provider } from '@oryxos/provider-spec';
import otel from '../src/index.ts';
import { otlpReceiver, type ReceivedSpan } from './helpers/otlp-receiver.ts';

const SECRET = 'secret-value-1234567';

/** A provider answering from `steps` (a step that is an Error is thrown), registering SECRET as a secret the way a key is. */
function provider(steps: (ChatResponse | Error | ((r: ChatRequest) => ChatResponse))[]): Plugin {
  let i = 0;
  const p: Provider = {
    name: 'acme', defaultModel: 'acme-1', retry: { maxRetries: 2, baseDelayMs: 1 },
    async chat(request) {
      const step = steps[i++];
      if (!step) throw new Error('script ended');
      if (step instanceof Error) throw step;
      return typeof step === 'function' ? step(request) : step;
    },
  };
  return { name: 'acme', version: '1.0.0', kernel: '^1', setup(ctx) { ctx.secrets.add(SECRET); ctx.registerProvider(p); } };
}

const big: Tool = { name: 'big', description: 'A long result', source: 'plugin', inputSchema: { type: 'object' }, async execute() { return 'x'.repeat(1000); } };

test('content capture over http/json: conventions\' shapes, secrets masked, redact applied, long values cut; retries as events; cache usage', async () => {
  const collector = await otlpReceiver();
  const llm = provider([
    new OryxError('ORYX_E_LLM_RATE_LIMITED', 'slow down', { retryable: true }),
    {
      message: { role: 'assistant', content: 'calling', toolCalls: [{ id: 'c1', name: 'echo', args: { text: `key ${SECRET} and internal-42` } }, { id: 'c2', name: 'big', args: {} }] },
      usage: { inputTokens: 50, outputTokens: 5, cacheReadTokens: 30, cacheWriteTokens: 10, reasoningTokens: 2 }, finishReason: 'other', rawFinishReason: 'pause_turn', model: 'acme-1-0601',
    },
    { message: { role: 'assistant', content: `final: ${SECRET}` }, usage: { inputTokens: 60, outputTokens: 6 }, finishReason: 'stop', model: 'acme-1-0601' },
  ]);
  const t = await testKernel({
    plugins: [llm, toolsPlugin(echoTool(), big), otel({ endpoint: collector.url, protocol: 'http/json', captureContent: true, redact: [/internal-\d+/], maxContentChars: 300 })],
    agents: { assistant: { tools: ['echo', 'big'], body: 'You are careful.' } },
  });
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.stopReason, 'final');
  } finally {
    await t.close();
  }
  try {
    assert.ok(collector.requests.length > 0 && collector.requests.every((q) => q.contentType === 'application/json'), 'http/json');
    const spans = collector.spans;
    const [call1, call2] = spans.filter((s) => s.name === 'chat acme-1').sort((a, b) => a.startMs - b.startMs) as [ReceivedSpan, ReceivedSpan];
    assert.equal(call1.events.map((e) => [e.name, e.attributes['oryx.llm.attempt'], e.attributes['error.type'], e.attributes['oryx.error.message']]), [['oryx.llm.retry', 1, 'ORYX_E_LLM_RATE_LIMITED', 'slow down']]);
    assert.equal(pick(call1.attributes, ['oryx.llm.attempts', 'gen_ai.usage.input_tokens', 'gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_creation.input_tokens', 'gen_ai.usage.reasoning.output_tokens', 'gen_ai.response.finish_reasons', 'oryx.llm.finish_reason.raw', 'gen_ai.response.model', 'gen_ai.provider.name']), {
      'oryx.llm.attempts': 2, 'gen_ai.usage.input_tokens': 50, 'gen_ai.usage.cache_read.input_tokens': 30, 'gen_ai.usage.cache_creation.input_tokens': 10,
      'gen_ai.usage.reasoning.output_tokens': 2, 'gen_ai.response.finish_reasons': ['pause_turn'], 'oryx.llm.finish_reason.raw': 'pause_turn', 'gen_ai.response.model': 'acme-1-0601', 'gen_ai.provider.name': 'acme',
    });
    assert.is(call2.attributes['gen_ai.usage.cache_read.input_tokens'], undefined, 'not reported: not set (never 0)');

    const input = JSON.parse(String(call1.attributes['gen_ai.input.messages']));
    assert.equal(input.map((m: { role: string }) => m.role), ['system', 'user']);
    assert.match(input[0].parts[0].content, 'You are careful.');
    assert.equal(input[1].parts, [{ type: 'text', content: 'go' }]);
    assert.equal(JSON.parse(String(call1.attributes['gen_ai.tool.definitions'])), [{ type: 'function', name: 'big' }, { type: 'function', name: 'echo' }], 'as offered (by name)');
    const output = JSON.parse(String(call1.attributes['gen_ai.output.messages']));
    assert.equal(output, [{ role: 'assistant', finish_reason: 'pause_turn', parts: [
      { type: 'text', content: 'calling' },
      { type: 'tool_call', id: 'c1', name: 'echo', arguments: { text: 'key *** and [REDACTED]' } },
      { type: 'tool_call', id: 'c2', name: 'big', arguments: {} },
    ] }]);
    const second = JSON.parse(String(call2.attributes['gen_ai.input.messages']));
    assert.equal(second.slice(-2).map((m: { role: string; parts: { type: string; id?: string }[] }) => [m.role, m.parts[0]!.type, m.parts[0]!.id]), [['tool', 'tool_call_response', 'c1'], ['tool', 'tool_call_response', 'c2']]);

    const echo = spans.find((s) => s.name === 'execute_tool echo')!;
    assert.is(echo.attributes['gen_ai.tool.call.arguments'], '{"text":"key *** and [REDACTED]"}');
    assert.is(echo.attributes['gen_ai.tool.call.result'], 'echo: key *** and [REDACTED]');
    const long = String(spans.find((s) => s.name === 'execute_tool big')!.attributes['gen_ai.tool.call.result']);
    assert.is(long, `${'x'.repeat(300)}… [cut: 700 more characters]`);
    const run = spans.find((s) => s.name === 'invoke_agent assistant')!;
    assert.equal(JSON.parse(String(run.attributes['gen_ai.output.messages'])), [{ role: 'assistant', parts: [{ type: 'text', content: 'final: ***' }], finish_reason: 'stop' }]);
    assert.not.match(JSON.stringify(spans), SECRET, 'the secret is nowhere');
  } finally {
    await collector.close();
  }
});

test('a model call that fails ends its chat span and the run span as errors, with the code as error.type', async () => {
  const collector = await otlpReceiver();
  const t = await testKernel({
    plugins: [provider([new OryxError('ORYX_E_LLM_AUTH', `bad key ${SECRET}`)]), otel({ endpoint: collector.url, protocol: 'http/json' })],
    agents: { assistant: { tools: [] } },
  });
  try {
    const r = await t.service.process({ agent: 'assistant', message: 'go' });
    assert.is(r.stopReason, 'error');
  } finally {
    await t.close();
  }
  try {
    const chat = collector.spans.find((s) => s.name === 'chat acme-1')!;
    assert.equal([chat.status.code, chat.status.message, chat.attributes['error.type']], [2, 'bad key ***', 'ORYX_E_LLM_AUTH']);
    assert.equal(chat.events.map((e) => [e.name, e.attributes['exception.type'], e.attributes['exception.message']]), [['exception', 'ORYX_E_LLM_AUTH', 'bad key ***']]);
    const run = collector.spans.find((s) => s.name === 'invoke_agent assistant')!;
    assert.equal([run.status.code, run.attributes['error.type'], run.attributes['oryx.run.stop_reason']], [2, 'ORYX_E_LLM_AUTH', 'error']);
  } finally {
    await collector.close();
  }
});

function pick(attributes: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, attributes[k]]));
}

test.run();
