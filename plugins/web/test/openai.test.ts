import { test } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import type { ChatRequest } from '@oryxos/provider-spec';
import { allSse, post, startWeb, type Harness } from './helpers.ts';

const TOKEN = 'test-token-0123456789abcdef';
const client = (h: Harness, options: { apiKey?: string; headers?: Record<string, string> } = {}) =>
  new OpenAI({ baseURL: `${h.url}/v1`, apiKey: options.apiKey ?? h.token ?? 'none', maxRetries: 0, defaultHeaders: options.headers });

const echoTool = {
  name: 'test-tools', version: '1.0.0', kernel: '^1',
  setup(k: any) {
    k.registerTool({
      name: 'echo', description: 'echo', source: 'plugin', inputSchema: { type: 'object' },
      async execute() { return 'pong'; },
    });
  },
};

test('the official openai SDK gets a streamed answer from an agent (model = agent, auth = token)', async () => {
  const h = await startWeb({
    web: { token: TOKEN },
    plugins: [echoTool],
    agents: { assistant: {}, helper: { tools: ['echo'] } },
    script: [{ text: 'Checking.', toolCalls: [{ name: 'echo' }] }, { text: 'The answer is 42.', usage: { inputTokens: 9, outputTokens: 4 } }],
  });
  try {
    const openai = client(h, { headers: { 'x-session-id': 'chat-1' } });
    const stream = await openai.chat.completions.create({
      model: 'helper', stream: true, stream_options: { include_usage: true },
      messages: [{ role: 'system', content: 'ignored: the agent has its own' }, { role: 'user', content: 'what is the answer?' }],
    });
    let text = '';
    const finish: (string | null)[] = [];
    let usage: OpenAI.CompletionUsage | undefined;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      assert.is(chunk.object, 'chat.completion.chunk');
      assert.is(chunk.model, 'helper');
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.finish_reason) finish.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    assert.ok(chunks > 4);
    assert.is(text, 'Checking.\n\nThe answer is 42.');
    assert.equal(finish, ['stop']);
    assert.is(usage?.completion_tokens, h.runs[0]!.usage.outputTokens);
    assert.is(usage?.total_tokens, h.runs[0]!.usage.inputTokens + h.runs[0]!.usage.outputTokens);
    const session = await h.kernel.service('sessions').get('chat-1');
    assert.is(session?.agent, 'helper');
    const stored = await h.kernel.service('sessions').messages('chat-1');
    assert.equal(stored.map((s) => s.message.role), ['user', 'assistant', 'tool', 'assistant']);
  } finally {
    await h.close();
  }
});

test('non-streaming completion; the session continues through `user` and ignores the resent history', async () => {
  const seen: string[][] = [];
  const record = (text: string) => (r: ChatRequest) => { seen.push(r.messages.filter((m) => m.role !== 'system').map((m) => m.content)); return { text }; };
  const h = await startWeb({ web: { token: TOKEN }, script: [record('hi Ann'), record('you said hello')] });
  try {
    const openai = client(h);
    const first = await openai.chat.completions.create({ model: 'assistant', user: 'ann', messages: [{ role: 'user', content: 'hello' }] });
    assert.is(first.object, 'chat.completion');
    assert.is(first.model, 'assistant');
    assert.equal(first.choices.map((c) => [c.message.role, c.message.content, c.finish_reason]), [['assistant', 'hi Ann', 'stop']]);
    assert.is(first.usage?.total_tokens, (first.usage?.prompt_tokens ?? 0) + (first.usage?.completion_tokens ?? 0));
    const { data, response } = await openai.chat.completions.create({
      model: 'assistant', user: 'ann',
      messages: [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi Ann' }, { role: 'user', content: [{ type: 'text', text: 'what did I say?' }] }],
    }).withResponse();
    assert.is(data.choices[0]!.message.content, 'you said hello');
    assert.is(response.headers.get('x-session-id'), 'ann');
    assert.equal(seen[1], ['hello', 'hi Ann', 'what did I say?'], 'stored history, not a duplicate of the resent one');
  } finally {
    await h.close();
  }
});

test('without a session id each request gets a new session seeded with the earlier messages', async () => {
  const h = await startWeb({ script: [{ text: 'fine' }] });
  try {
    const res = await post(`${h.url}/v1/chat/completions`, {
      model: 'assistant',
      messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'one' }, { role: 'assistant', content: 'two' }, { role: 'user', content: 'three' }],
    }, h.auth);
    assert.is(res.status, 200);
    const id = res.headers.get('x-session-id')!;
    assert.ok(id);
    const stored = await h.kernel.service('sessions').messages(id);
    assert.equal(stored.map((s) => `${s.message.role}:${s.message.content}`), ['user:one', 'assistant:two', 'user:three', 'assistant:fine']);
    assert.equal(h.llm.requests[0]!.messages.filter((m) => m.role !== 'system').map((m) => m.content), ['one', 'two', 'three']);
  } finally {
    await h.close();
  }
});

test('GET /v1/models lists the agents; the SDK sees them', async () => {
  const h = await startWeb({ web: { token: TOKEN }, agents: { assistant: {}, researcher: {} } });
  try {
    const models = [];
    for await (const m of client(h).models.list()) models.push(m);
    assert.equal(models.map((m) => [m.id, m.object, m.owned_by]), [['assistant', 'model', 'oryxos'], ['researcher', 'model', 'oryxos']]);
  } finally {
    await h.close();
  }
});

test('errors reach the SDK as its own exception classes, with OryxOS code and hint', async () => {
  const h = await startWeb({ web: { token: TOKEN }, agents: { assistant: {}, other: {} } });
  try {
    const expectError = async (fn: () => Promise<unknown>, status: number, code: string) => {
      try { await fn(); } catch (error) {
        assert.instance(error, OpenAI.APIError);
        const e = error as InstanceType<typeof OpenAI.APIError>;
        assert.is(e.status, status);
        assert.is(e.code, code);
        assert.type((e.error as any).hint, 'string');
        assert.ok(e.requestID, 'x-request-id is exposed to the SDK');
        return e;
      }
      assert.unreachable('should have thrown');
    };
    const unknown = await expectError(() => client(h).chat.completions.create({ model: 'ghost', messages: [{ role: 'user', content: 'x' }] }), 404, 'ORYX_E_AGENT_NOT_FOUND');
    assert.is(unknown!.param, 'model');
    await expectError(() => client(h, { apiKey: 'wrong-token-0123456789' }).chat.completions.create({ model: 'assistant', messages: [{ role: 'user', content: 'x' }] }), 401, 'ORYX_E_WEB_UNAUTHORIZED');
    const notUser = await expectError(() => client(h).chat.completions.create({ model: 'assistant', messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: 'y' }] }), 400, 'ORYX_E_WEB_BAD_REQUEST');
    assert.is(notUser!.param, 'messages.1.role');
    const noMessages = await expectError(() => client(h).chat.completions.create({ model: 'assistant', messages: [] }), 400, 'ORYX_E_WEB_BAD_REQUEST');
    assert.is(noMessages!.param, 'messages');
    const image = await expectError(() => client(h).chat.completions.create({
      model: 'assistant', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:,' } }] }],
    }), 400, 'ORYX_E_WEB_BAD_REQUEST');
    assert.is(image!.param, 'messages.0.content.0.type');
    // A session id that belongs to another agent.
    await h.kernel.service('sessions').create({ agent: 'other', id: 'taken' });
    await expectError(() => client(h).chat.completions.create({ model: 'assistant', user: 'taken', messages: [{ role: 'user', content: 'x' }] }), 409, 'ORYX_E_SESSION_AGENT_MISMATCH');
    const badHeader = await post(`${h.url}/v1/chat/completions`, { model: 'assistant', messages: [{ role: 'user', content: 'x' }] }, { authorization: `Bearer ${TOKEN}`, 'x-session-id': 'no spaces allowed' });
    assert.is(badHeader.status, 400);
    assert.is(((await badHeader.json()) as any).error.param, 'x-session-id');
  } finally {
    await h.close();
  }
});

test('/v1 limits: the body may exceed maxMessageBytes (history), the last message may not', async () => {
  const h = await startWeb({ web: { maxMessageBytes: 200, maxChatBodyBytes: 5000 }, script: [{ text: 'ok' }] });
  try {
    const history = Array.from({ length: 10 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `${i} `.repeat(40) }));
    const ok = await post(`${h.url}/v1/chat/completions`, { model: 'assistant', messages: [...history, { role: 'user', content: 'short' }] }, h.auth);
    assert.is(ok.status, 200);
    const long = await post(`${h.url}/v1/chat/completions`, { model: 'assistant', messages: [{ role: 'user', content: 'x'.repeat(201) }] }, h.auth);
    assert.is(long.status, 413);
    const body = (await long.json()) as any;
    assert.is(body.error.code, 'ORYX_E_WEB_TOO_LARGE');
    assert.is(body.error.param, 'messages.0.content');
    const huge = await post(`${h.url}/v1/chat/completions`, { model: 'assistant', messages: [{ role: 'user', content: 'x'.repeat(6000) }] }, h.auth);
    assert.is(huge.status, 413);
  } finally {
    await h.close();
  }
});

test('a streamed completion whose run fails ends with an error chunk and [DONE]; the SDK throws', async () => {
  const h = await startWeb({ script: [{ error: new Error('model gone') }] });
  try {
    const res = await post(`${h.url}/v1/chat/completions`, { model: 'assistant', stream: true, messages: [{ role: 'user', content: 'x' }] }, h.auth);
    const events = await allSse(res);
    assert.is(events.at(-1)!.data, '[DONE]');
    const error = JSON.parse(events.at(-2)!.data);
    assert.is(error.error.code, 'ORYX_E_LLM_FAILED');
    assert.is(error.error.type, 'api_error');
  } finally {
    await h.close();
  }
  const h2 = await startWeb({ script: [{ error: new Error('model gone') }] });
  try {
    const stream = await client(h2).chat.completions.create({ model: 'assistant', stream: true, messages: [{ role: 'user', content: 'x' }] });
    let thrown: unknown;
    try { for await (const _ of stream) { /* drain */ } } catch (error) { thrown = error; }
    assert.instance(thrown, OpenAI.APIError);
    assert.match((thrown as Error).message, 'model gone');
  } finally {
    await h2.close();
  }
});

test.run();
