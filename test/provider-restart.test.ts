// What a server needs back survives a restart: the provider metadata (DeepSeek's
// reasoning_content field, Gemini's thought signature, OpenRouter's reasoning_details) is stored
// with the message by the sqlite store and comes back from it. Turn 1 is a tool loop on one
// kernel; the process is gone (the kernel closed); turn 2 runs on a new kernel over the same
// database, and its request must carry turn 1's reasoning on the tool turn's assistant
// messages, as DeepSeek's thinking mode requires (api-docs.deepseek.com/guides/thinking_mode).
import { rm } from 'node:fs/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { echoTool, tempProject, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import openai from '@oryxos/plugin-openai';
import sqlite from '@oryxos/plugin-sqlite';
import { chunk, completion, openaiServer } from '../plugins/openai/test/helpers/openai-server.ts';
import { deepseekThinkingRule } from '../plugins/openai/test/helpers/server-rules.ts';

const REASONING = 'The user asks for an echo; I call the tool.';
const SIG = 'CrICAdHtim827fQyYKnXbY4nUx9s1Q==';
const DETAILS = [{ type: 'reasoning.encrypted', data: 'gAAAAABo-opaque', index: 0 }];

for (const stream of [false, true]) {
  test(`(${stream ? 'streamed' : 'whole'}) reasoning_content, a thought signature and reasoning_details come back from the store after a restart`, async () => {
    const call = { id: 'call_1', type: 'function', function: { name: 'echo', arguments: '{"text":"hi"}' }, extra_content: { google: { thought_signature: SIG } } };
    const server = await openaiServer([
      stream
        ? { events: [chunk({ role: 'assistant', reasoning_content: REASONING, reasoning_details: DETAILS }), chunk({ tool_calls: [{ index: 0, ...call }] }), chunk({}, 'tool_calls')] }
        : { json: { id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, reasoning_content: REASONING, reasoning_details: DETAILS, tool_calls: [call] } }] } },
      (body) => deepseekThinkingRule(body) ?? { json: completion({ content: 'echoed hi', reasoning: 'It worked.' }) },
      (body) => deepseekThinkingRule(body) ?? { json: completion({ content: 'second turn' }) },
    ]);
    const dir = await tempProject('provider-restart-');
    const kernel = () => testKernel({ dir, plugins: [openai({ name: 'deepseek', baseURL: server.url, apiKey: 'k', defaultModel: 'm' }), sqlite(), toolsPlugin(echoTool())] });
    try {
      const before = await kernel();
      let sessionId: string;
      try {
        const r = await before.service.process({ agent: 'assistant', message: 'echo hi', stream });
        assert.is(r.answer, 'echoed hi');
        sessionId = r.sessionId;
      } finally { await before.close({ keep: true }); }

      const after = await kernel();
      try {
        const r = await after.service.process({ agent: 'assistant', session: sessionId, message: 'and now?', stream });
        assert.is(r.answer, 'second turn', JSON.stringify(r.error));
      } finally { await after.close({ keep: true }); }
      const third = server.requests[2]!.body.messages.filter((m: any) => m.role === 'assistant');
      assert.equal(third.map((m: any) => m.reasoning_content), [REASONING, 'It worked.']);
      assert.equal(third[0].tool_calls[0].extra_content, { google: { thought_signature: SIG } });
      assert.equal(third[0].reasoning_details, DETAILS);
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
}

test.run();
