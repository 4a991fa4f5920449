// A sub-agent's run carries the trace context of the agent__ call that started it (the call's
// headers, as a tracing plugin put them), so its span is a child of that call's span.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Plugin, RunContext } from '@oryxos/kernel';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import subagents from '../src/index.ts';

test('the sub-agent\'s run gets the agent__ call\'s headers as its origin carrier; the caller\'s run has none', async () => {
  const seen: RunContext[] = [];
  const tracer: Plugin = {
    name: 'tracer', version: '1.0.0', kernel: '^1',
    setup(ctx) {
      ctx.hooks.beforeTool.tapPromise(async (info) => { info.headers.traceparent = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`; return undefined; });
      ctx.hooks.runStart.tapPromise(async (run) => { seen.push(run); });
    },
  };
  const llm = scripted([{ toolCalls: [{ name: 'agent__helper', args: { task: 'hi' } }] }, { text: 'hello' }, { text: 'done' }]);
  const t = await testKernel({ plugins: [llm, subagents(), tracer], agents: { lead: { agents: ['helper'], tools: [] }, helper: { tools: [] } } });
  try {
    const r = await t.service.process({ agent: 'lead', message: 'go' });
    assert.is(r.answer, 'done');
    assert.equal(seen.map((run) => [run.agent.name, run.origin]), [
      ['lead', undefined],
      ['helper', { carrier: { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` } }],
    ]);
  } finally {
    await t.close();
  }
});

test.run();
