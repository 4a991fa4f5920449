// A long run on the real SDK over loopback leaks no abort listener: 50 iterations with Node's
// warnings turned into failures (MaxListenersExceededWarning fires at the 11th listener).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { echoTool, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import openai from '../src/index.ts';
import { completion, openaiServer, textStream, chunk } from './helpers/openai-server.ts';

async function fiftyIterations(stream: boolean): Promise<string[]> {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  const call = (i: number) => ({ id: `c${i}`, name: 'echo', args: { text: `step ${i}` } });
  const script = Array.from({ length: 50 }, (_, i) => i === 49
    ? (stream ? { events: textStream(['done']) } : { json: completion({ content: 'done' }) })
    : (stream
      ? { events: [chunk({ role: 'assistant', tool_calls: [{ index: 0, id: `c${i}`, type: 'function', function: { name: 'echo', arguments: JSON.stringify(call(i).args) } }] }), chunk({}, 'tool_calls')] }
      : { json: completion({ toolCalls: [call(i)] }) }));
  const server = await openaiServer(script);
  const t = await testKernel({
    plugins: [openai({ baseURL: server.url, apiKey: 'sk-test', defaultModel: 'm' }), toolsPlugin(echoTool())],
    agents: { assistant: { tools: ['echo'], settings: { max_iterations: 60, max_tool_calls: 100, loop_detection: false } } },
  });
  try {
    const controller = new AbortController();
    const session = await t.kernel.service('sessions').create({ agent: 'assistant' });
    const r = await t.service.process({ agent: 'assistant', session: session.id, message: 'go', stream, signal: controller.signal });
    assert.is(r.stopReason, 'final');
    assert.is(r.iterations, 50);
  } finally {
    await t.close();
    await server.close();
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
  }
  return warnings;
}

test('50 iterations on the OpenAI provider add no abort listener that stays (chat)', async () => {
  assert.equal(await fiftyIterations(false), []);
});

test('50 iterations on the OpenAI provider add no abort listener that stays (stream)', async () => {
  assert.equal(await fiftyIterations(true), []);
});

test.run();
