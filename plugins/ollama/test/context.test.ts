// num_ctx from the agent's context_tokens, so Ollama does not cut long prompts to its small
// default context: capped by the model's own limit when /api/show reports it, looked up once
// per model; an explicit modelOptions.num_ctx wins. Against the loopback wire server, through
// the real SDK and a kernel run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { testKernel } from '@oryxos/kernel/testing';
import ollama from '../src/index.ts';
import type { OllamaOptions } from '../src/options.ts';
import { chatResponse, ollamaServer, type Reply } from './helpers/ollama-server.ts';

const answers = (n: number): Reply[] => Array.from({ length: n }, () => ({ json: chatResponse({ content: 'ok', usage: [5, 1] }) }));
const modelInfo = (limit: number) => () => ({ json: { model_info: { 'general.architecture': 'qwen2', 'qwen2.context_length': limit, 'qwen2.embedding_length': 3584 } } });

async function run(options: { show?: () => Reply; ollama?: OllamaOptions; contextTokens?: number; runs?: number; stream?: boolean }) {
  const runs = options.runs ?? 1;
  const server = await ollamaServer(answers(runs), options.show ? { show: options.show } : {});
  const t = await testKernel({
    plugins: [ollama({ host: server.url, defaultModel: 'qwen2.5:7b', ...options.ollama })],
    agents: { assistant: options.contextTokens ? { settings: { context_tokens: options.contextTokens } } : {} },
  });
  try {
    for (let i = 0; i < runs; i++) assert.is((await t.service.process({ agent: 'assistant', message: 'hi', stream: options.stream })).answer, 'ok');
    return { sent: server.requests.map((r) => r.body.options?.num_ctx), shows: server.shows.map((r) => r.body) };
  } finally {
    await t.close();
    await server.close();
  }
}

test("num_ctx is the agent's context_tokens, capped by the model's limit from /api/show, looked up once per model", async () => {
  const capped = await run({ show: modelInfo(8192), runs: 2 });
  assert.equal(capped.sent, [8192, 8192], 'the default 32000 is capped to what the model takes');
  assert.equal(capped.shows, [{ model: 'qwen2.5:7b' }], 'one lookup for two runs');

  const under = await run({ show: modelInfo(131072), contextTokens: 16000, stream: true });
  assert.equal(under.sent, [16000], 'under the limit: the agent\'s own, streamed calls too');
});

test('without a limit from Ollama the agent\'s context_tokens goes as it is; modelOptions.num_ctx wins', async () => {
  const unknown = await run({ contextTokens: 12000 });
  assert.equal(unknown.sent, [12000], 'a 404 from /api/show leaves no cap');
  assert.is(unknown.shows.length, 1);

  const noInfo = await run({ show: () => ({ json: { model_info: {} } }) });
  assert.equal(noInfo.sent, [32000], 'the default context_tokens');

  const explicit = await run({ show: modelInfo(8192), ollama: { modelOptions: { num_ctx: 4096, temperature: 0 } } });
  assert.equal(explicit.sent, [4096]);
  assert.equal(explicit.shows, [], 'no lookup when the config sets num_ctx');
});

test.run();
