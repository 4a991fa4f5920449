// End to end through the built `oryx` CLI (npm test builds first; alone: `npx tsc -b plugins/openai` first).
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, tempProject, writeAgents } from '@oryxos/kernel/testing';
import { openaiServer, completion, chunk, textStream } from './helpers/openai-server.ts';



const config = (url: string) => `import { defineConfig, type Tool } from '@oryxos/kernel';
import openai from '@oryxos/plugin-openai';

const add: Tool = {
  name: 'add', description: 'Add two numbers', source: 'plugin',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  async execute(args) { return String(Number(args.a) + Number(args.b)); },
};

export default defineConfig({
  plugins: [
    openai({ baseURL: '${url}', apiKey: 'test', defaultModel: 'm' }),
    { name: 'calc', version: '1.0.0', kernel: '^1', setup(k) { k.registerTool(add); } },
  ],
});
`;

test('oryx run against the loopback OpenAI server: several tool-calling iterations, answer printed', async () => {
  const server = await openaiServer([
    { json: completion({ toolCalls: [{ id: 'c1', name: 'add', args: { a: 2, b: 3 } }], usage: [10, 1] }) },
    (body) => {
      const result = body.messages.at(-1);
      return { json: completion({ toolCalls: [{ id: 'c2', name: 'add', args: { a: Number(result.content), b: 10 } }], usage: [20, 2] }) };
    },
    (body) => ({ json: completion({ content: `The total is ${body.messages.at(-1).content}.`, usage: [30, 3] }) }),
  ]);
  const dir = await tempProject('openai-e2e-');
  try {
    await writeFile(path.join(dir, 'oryx.config.ts'), config(server.url));
    await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['add'] } });
    const r = await runOryx(['run', 'What is 2+3, plus 10?', '--json'], { cwd: dir, env: { OPENAI_API_KEY: '', OPENAI_BASE_URL: '' } });
    assert.is(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.is(result.stopReason, 'final');
    assert.is(result.answer, 'The total is 15.');
    assert.is(result.iterations, 3);
    assert.equal(result.usage, { inputTokens: 60, outputTokens: 6 });
    assert.is(server.requests.length, 3);
    assert.equal(server.requests[2]!.body.messages.filter((m: any) => m.role === 'tool'), [
      { role: 'tool', tool_call_id: 'c1', content: '5' },
      { role: 'tool', tool_call_id: 'c2', content: '15' },
    ]);
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('oryx run --stream prints tokens as they come', async () => {
  const server = await openaiServer([{ events: textStream(['Hello', ' from', ' the stream']) }]);
  const dir = await tempProject('openai-e2e-');
  try {
    await writeFile(path.join(dir, 'oryx.config.ts'), config(server.url));
    await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: [] } });
    const r = await runOryx(['run', 'hi', '--stream'], { cwd: dir });
    assert.is(r.code, 0, r.stderr);
    assert.is(r.stdout, 'Hello from the stream\n');
    assert.is(server.requests[0]!.body.stream, true);
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('oryx run --stream, the stream cut after tokens: the error says it was not retried, the session keeps the message', async () => {
  const server = await openaiServer([{ events: [chunk({ role: 'assistant', content: 'Half' })], cut: true }]);
  const dir = await tempProject('openai-e2e-');
  try {
    await writeFile(path.join(dir, 'oryx.config.ts'), config(server.url)
      .replace("import openai from '@oryxos/plugin-openai';", "import openai from '@oryxos/plugin-openai';\nimport sqlite from '@oryxos/plugin-sqlite';")
      .replace('  plugins: [', '  plugins: [\n    sqlite(),'));
    await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: [] } });
    const r = await runOryx(['run', 'tell me everything', '--stream'], { cwd: dir });
    assert.is(r.code, 1);
    assert.is(r.stdout, 'Half');
    assert.match(r.stderr, 'ORYX_E_LLM_CONNECTION');
    assert.match(r.stderr, 'not retried');
    assert.match(r.stderr, 'session keeps');
    assert.is(server.requests.length, 1);
    const sessions = JSON.parse((await runOryx(['sessions', '--json'], { cwd: dir })).stdout);
    const shown = JSON.parse((await runOryx(['sessions', 'show', sessions.items[0].id, '--json'], { cwd: dir })).stdout);
    assert.equal(shown.messages.map((m: any) => m.message.content), ['tell me everything']);
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
