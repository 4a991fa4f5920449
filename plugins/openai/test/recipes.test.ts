// The recipes of docs/providers.md, tested as written: each `ts recipe=<name>` block is
// evaluated with the real openai() (the key from the environment variable it names), only the
// host of its baseURL replaced by a loopback server that speaks that server's shape (see
// servers.test.ts for where each shape comes from); then a tool loop runs, streamed and not,
// and the request shows the recipe's path, key, headers and what that server needs back.
import { readFile } from 'node:fs/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Plugin } from '@oryxos/kernel';
import { echoTool, testKernel, toolsPlugin } from '@oryxos/kernel/testing';
import { responseRecorder, wireServer, type Reply, type WireServer } from '@oryxos/provider-kit/testing';
import type { ChatResponse } from '@oryxos/provider-spec';
import openai, { type OpenAIOptions } from '../src/index.ts';
import { chunk, completion } from './helpers/openai-server.ts';

const doc = await readFile(new URL('../../../docs/providers.md', import.meta.url), 'utf8');
const recipes = new Map([...doc.matchAll(/```ts recipe=([\w-]+)\n([\s\S]*?)```/g)].map((m) => [m[1]!, m[2]!.trim()]));

const KEYS: Record<string, string> = {
  OPENAI_API_KEY: 'sk-openai-test', GEMINI_API_KEY: 'gemini-test-key', DEEPSEEK_API_KEY: 'sk-deepseek-test', MOONSHOT_API_KEY: 'sk-moonshot-test',
  MISTRAL_API_KEY: 'mistral-test-key', OPENROUTER_API_KEY: 'sk-or-test',
};

/** The recipe's plugin, as written, with its host moved to `origin` (its path kept). */
function recipePlugin(code: string, origin: string): { plugin: Plugin; options: OpenAIOptions } {
  let options!: OpenAIOptions;
  const build = (o: OpenAIOptions) => {
    options = o;
    const base = new URL(o.baseURL ?? 'https://api.openai.com/v1');
    return openai({ ...o, baseURL: `${origin}${base.pathname.replace(/\/$/, '')}` });
  };
  // The recipe is this repository's own documentation: one openai({...}) expression.
  const plugin = new Function('openai', 'process', `return ${code};`)(build, { env: KEYS }) as Plugin;
  return { plugin, options };
}

interface Shape {
  /** The first answer (a tool call in that server's shape) and the key the recipe must send. */
  first(stream: boolean): Reply;
  /** What the second request must carry back on the assistant message. */
  check(assistant: any): void;
  key?: string;
}

const call = (id: string, more: Record<string, unknown> = {}) => ({ id, type: 'function', function: { name: 'echo', arguments: '{"text":"hi"}' }, ...more });
const whole = (message: Record<string, unknown>): Reply => ({ json: { id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, ...message } }] } });
const streamed = (...deltas: Record<string, unknown>[]): Reply => ({ events: [...deltas.map((d) => chunk(d)), chunk({}, 'tool_calls')] });

const SHAPES: Record<string, Shape> = {
  openai: { key: KEYS.OPENAI_API_KEY, first: (s) => (s ? streamed({ role: 'assistant', tool_calls: [{ index: 0, ...call('call_o') }] }) : whole({ tool_calls: [call('call_o')] })), check: (a) => assert.is(a.tool_calls[0].id, 'call_o') },
  gemini: {
    key: KEYS.GEMINI_API_KEY,
    first: (s) => (s ? streamed({ role: 'assistant', tool_calls: [call('fc_g', { extra_content: { google: { thought_signature: 'Ct0B' } } })] }) : whole({ tool_calls: [call('fc_g', { extra_content: { google: { thought_signature: 'Ct0B' } } })] })),
    check: (a) => assert.equal(a.tool_calls[0].extra_content, { google: { thought_signature: 'Ct0B' } }),
  },
  deepseek: {
    key: KEYS.DEEPSEEK_API_KEY,
    first: (s) => (s ? streamed({ role: 'assistant', reasoning_content: 'I call echo.' }, { tool_calls: [{ index: 0, ...call('call_00_d') }] }) : whole({ reasoning_content: 'I call echo.', tool_calls: [call('call_00_d')] })),
    check: (a) => assert.is(a.reasoning_content, 'I call echo.'),
  },
  kimi: {
    key: KEYS.MOONSHOT_API_KEY,
    first: (s) => (s ? streamed({ role: 'assistant', reasoning_content: 'Echo it.' }, { tool_calls: [{ index: 0, ...call('functions.echo:0') }] }) : whole({ reasoning_content: 'Echo it.', tool_calls: [call('functions.echo:0')] })),
    check: (a) => assert.is(a.reasoning_content, 'Echo it.'),
  },
  mistral: {
    key: KEYS.MISTRAL_API_KEY,
    first: (s) => (s
      ? streamed({ role: 'assistant', content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'Echo.' }] }] }, { content: [{ type: 'text', text: 'On it.' }] }, { tool_calls: [{ index: 0, ...call('m1') }] })
      : whole({ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'Echo.' }] }, { type: 'text', text: 'On it.' }], tool_calls: [call('m1')] })),
    check: (a) => assert.is(a.content, 'On it.'),
  },
  openrouter: {
    key: KEYS.OPENROUTER_API_KEY,
    first: (s) => (s
      ? streamed({ role: 'assistant', reasoning: 'Echo.', reasoning_details: [{ type: 'reasoning.text', text: 'Echo.', index: 0 }] }, { tool_calls: [{ index: 0, ...call('toolu_r') }] })
      : whole({ reasoning: 'Echo.', reasoning_details: [{ type: 'reasoning.text', text: 'Echo.', index: 0 }], tool_calls: [call('toolu_r')] })),
    check: (a) => assert.equal(a.reasoning_details, [{ type: 'reasoning.text', text: 'Echo.', index: 0 }]),
  },
  'ollama-v1': {
    key: 'ollama',
    first: (s) => (s ? streamed({ role: 'assistant', reasoning: 'Twice.' }, { tool_calls: [{ index: 0, ...call('call_a') }] }, { tool_calls: [{ index: 0, ...call('call_b') }] }) : whole({ reasoning: 'Twice.', tool_calls: [call('call_a'), call('call_b')] })),
    check: (a) => { assert.equal(a.tool_calls.map((c: any) => c.id), ['call_a', 'call_b']); assert.is(a.reasoning, 'Twice.'); },
  },
  vllm: {
    // VLLM_API_KEY is unset here.
    key: 'EMPTY',
    first: (s) => (s ? streamed({ role: 'assistant', reasoning: 'Echo.', reasoning_content: 'Echo.' }, { tool_calls: [{ index: 0, ...call('chatcmpl-tool-1') }] }) : whole({ reasoning: 'Echo.', reasoning_content: 'Echo.', tool_calls: [call('chatcmpl-tool-1')] })),
    check: (a) => assert.is(a.reasoning_content, 'Echo.'),
  },
};

test('every recipe in docs/providers.md has a shape here, and every shape a recipe', () => {
  assert.equal([...recipes.keys()].sort(), Object.keys(SHAPES).sort());
});

for (const [name, code] of recipes) {
  for (const stream of [false, true]) {
    test(`recipe ${name} (${stream ? 'streamed' : 'whole'}): configured as docs/providers.md says, a tool loop ends, with what the server needs back`, async () => {
      const shape = SHAPES[name]!;
      const path = new URL((/baseURL: '([^']+)'/.exec(code)?.[1]) ?? 'https://api.openai.com/v1').pathname.replace(/\/$/, '');
      const server: WireServer = await wireServer([shape.first(stream), { json: completion({ content: 'done', usage: [9, 1] }) }], { framing: 'sse' });
      const { plugin, options } = recipePlugin(code, server.url);
      const responses: ChatResponse[] = [];
      const echo = echoTool();
      // The plugin reads OPENAI_API_KEY (and OPENAI_BASE_URL, unset here) from the environment at setup.
      const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
      process.env.OPENAI_API_KEY = KEYS.OPENAI_API_KEY;
      delete process.env.OPENAI_BASE_URL;
      const t = await testKernel({ plugins: [plugin, toolsPlugin(echo), responseRecorder(responses)], agents: { assistant: { provider: options.name ?? 'openai', tools: ['echo'] } } });
      try {
        const r = await t.service.process({ agent: 'assistant', message: 'echo hi', stream });
        assert.is(r.answer, 'done', JSON.stringify(r.error));
        assert.ok(echo.calls.length >= 1, 'the tool ran');
        const [first, second] = server.requests;
        assert.is(first!.path, `${path}/chat/completions`);
        assert.is(first!.body.model, options.defaultModel);
        assert.is(first!.headers.authorization, `Bearer ${shape.key}`);
        for (const [header, value] of Object.entries(options.headers ?? {})) assert.is(first!.headers[header.toLowerCase()], value);
        shape.check(second!.body.messages.find((m: any) => m.role === 'assistant'));
      } finally {
        await t.close();
        await server.close();
        if (saved.key === undefined) delete process.env.OPENAI_API_KEY; else process.env.OPENAI_API_KEY = saved.key;
        if (saved.url !== undefined) process.env.OPENAI_BASE_URL = saved.url;
      }
    });
  }
}

test.run();
