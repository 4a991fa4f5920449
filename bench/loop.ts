// Kernel overhead per ReAct step: an in-process provider (no network, no recording) and a
// trivial tool on the in-memory session store, so what is measured is the loop itself:
// prompt build, hooks, executor, commits. Run: node --import tsx bench/loop.ts [steps]
import { testKernel } from '@oryxos/kernel/testing';
import type { Plugin } from '@oryxos/kernel';
import type { Provider } from '@oryxos/provider-spec';

const steps = Number(process.argv[2] ?? 1_000);
let calls = 0;
const provider: Provider = {
  name: 'bench', defaultModel: 'bench',
  async chat(request) {
    calls++;
    const done = calls >= steps;
    return {
      message: done ? { role: 'assistant', content: 'done' } : { role: 'assistant', content: '', toolCalls: [{ id: `c${calls}`, name: 'noop', args: {} }] },
      usage: { inputTokens: 100, outputTokens: 10 }, finishReason: done ? 'stop' : 'tool_calls', model: request.model,
    };
  },
};
const plugin: Plugin = {
  name: 'bench', version: '1.0.0', kernel: '^1',
  setup(k) {
    k.registerProvider(provider);
    k.registerTool({ name: 'noop', description: 'does nothing', source: 'plugin', inputSchema: { type: 'object' }, async execute() { return 'ok'; } });
  },
};
const t = await testKernel({ plugins: [plugin], agents: { assistant: { tools: ['noop'], settings: { max_iterations: steps, context_tokens: 10_000_000 } } } });
const t0 = performance.now();
const r = await t.service.process({ agent: 'assistant', message: 'go' });
const ms = performance.now() - t0;
await t.close();
console.log(`${r.iterations} steps in ${ms.toFixed(0)} ms: ${(ms / r.iterations * 1000).toFixed(0)} µs per step on average (the prompt is rebuilt from a history that grows to ${r.iterations * 2} messages)`);
