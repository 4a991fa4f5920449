import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allSse, newSession, post, readSse, startWeb } from './helpers.ts';

const sse = { accept: 'text/event-stream' };

const echoTool = {
  name: 'test-tools', version: '1.0.0', kernel: '^1',
  setup(k: any) {
    k.registerTool({
      name: 'echo', description: 'echo', source: 'plugin',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      async execute(args: any) { return `echo: ${args.text}`; },
    });
  },
};

test('SSE: token, tool_call, tool_result, token…, done, in the order the loop ran', async () => {
  const h = await startWeb({
    plugins: [echoTool],
    script: [
      { text: 'let me check', toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'hi' } }], usage: { inputTokens: 10, outputTokens: 5 } },
      { text: 'all good here', usage: { inputTokens: 10, outputTokens: 5 } },
    ],
  });
  try {
    const id = await newSession(h);
    const res = await post(`${h.url}/api/sessions/${id}/messages`, { message: 'check' }, { ...h.auth, ...sse });
    assert.is(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', 'text/event-stream');
    assert.ok(res.headers.get('x-request-id'));
    const events = await allSse(res);
    const names = events.map((e) => e.event);
    assert.equal(names, ['token', 'token', 'token', 'usage', 'tool_call', 'tool_result', 'token', 'token', 'token', 'usage', 'done']);
    const data = events.map((e) => JSON.parse(e.data));
    assert.is(data.slice(0, 3).map((d) => d.text).join(''), 'let me check');
    assert.ok(data.slice(0, 3).every((d) => d.iteration === 1));
    // After each model call, the run's tokens so far (what the console's status line shows).
    assert.equal(data[3], { inputTokens: 10, outputTokens: 5, calls: 1 });
    assert.equal(data[4], { id: 'c1', name: 'echo', args: { text: 'hi' } });
    assert.equal(data[5], { id: 'c1', name: 'echo', content: 'echo: hi', isError: false });
    assert.is(data.slice(6, 9).map((d) => d.text).join(''), 'all good here');
    assert.ok(data.slice(6, 9).every((d) => d.iteration === 2));
    assert.equal(data[9], { inputTokens: 20, outputTokens: 10, calls: 2 });
    const { runId, budget, ...done } = data[10];
    assert.equal(done, { sessionId: id, answer: 'all good here', stopReason: 'final', iterations: 2, usage: { inputTokens: 20, outputTokens: 10 } });
    assert.match(runId, /^[0-9a-f-]{36}$/);
    assert.equal([budget.tokens, budget.toolCalls, budget.retries], [30, 1, 0]);
    const stored = await h.kernel.service('sessions').messages(id);
    assert.equal(stored.map((s) => s.message.role), ['user', 'assistant', 'tool', 'assistant']);
  } finally {
    await h.close();
  }
});

test('a run at max_iterations: REST and SSE done carry stopReason limit, the limit and the tool-less answer', async () => {
  const step = (n: number) => ({ toolCalls: [{ name: 'echo', args: { text: `step ${n}` } }] });
  const h = await startWeb({
    plugins: [echoTool],
    agents: { assistant: { tools: ['*'], settings: { max_iterations: 1 } } },
    script: [step(1), { text: 'one step done, the rest unfinished' }, step(2), { text: 'streamed: unfinished' }],
  });
  try {
    const id = await newSession(h);
    const rest = await (await post(`${h.url}/api/sessions/${id}/messages`, { message: 'go' }, h.auth)).json() as Record<string, unknown>;
    assert.equal([rest.stopReason, rest.answer, rest.limit, rest.notice], ['limit', 'one step done, the rest unfinished', { name: 'max_iterations', value: 1 }, 'stopped at max_iterations (1 model calls)']);
    const events = await allSse(await post(`${h.url}/api/sessions/${id}/messages`, { message: 'again' }, { ...h.auth, ...sse }));
    assert.equal(events.map((e) => e.event).filter((e) => e !== 'token'), ['usage', 'tool_call', 'tool_result', 'stopping', 'usage', 'done']);
    assert.equal(JSON.parse(events.find((e) => e.event === 'stopping')!.data), { reason: 'limit', notice: 'stopped at max_iterations (1 model calls)' });
    const done = JSON.parse(events.at(-1)!.data);
    assert.equal([done.stopReason, done.answer, done.limit], ['limit', 'streamed: unfinished', { name: 'max_iterations', value: 1 }]);
    assert.equal(h.llm.requests.at(-1)!.tools, [], 'the last call offered no tools');
  } finally {
    await h.close();
  }
});

test('SSE usage: each run counts its own model calls, also when it waited behind another run of the session', async () => {
  const h = await startWeb({
    script: [
      { text: 'first', delayMs: 300, usage: { inputTokens: 10, outputTokens: 1 } },
      { text: 'second', usage: { inputTokens: 100, outputTokens: 7, cacheReadTokens: 64 } },
    ],
  });
  try {
    const id = await newSession(h);
    // The second request waits for the first to end: its listener must not hear the first run's call.
    const [a, b] = await Promise.all([
      post(`${h.url}/api/sessions/${id}/messages`, { message: 'one' }, { ...h.auth, ...sse }).then(allSse),
      new Promise((r) => setTimeout(r, 50)).then(() => post(`${h.url}/api/sessions/${id}/messages`, { message: 'two' }, { ...h.auth, ...sse })).then(allSse),
    ]);
    const usage = (events: { event?: string; data: string }[]) => events.filter((e) => e.event === 'usage').map((e) => JSON.parse(e.data));
    assert.equal(usage(a), [{ inputTokens: 10, outputTokens: 1, calls: 1 }]);
    assert.equal(usage(b), [{ inputTokens: 100, outputTokens: 7, cacheReadTokens: 64, calls: 1 }]);
  } finally {
    await h.close();
  }
});

test('SSE: a failed run ends the stream with one error event and no done', async () => {
  const h = await startWeb({ script: [{ error: new Error('upstream down') }] });
  try {
    const id = await newSession(h);
    const events = await allSse(await post(`${h.url}/api/sessions/${id}/messages`, { message: 'x' }, { ...h.auth, ...sse }));
    assert.equal(events.map((e) => e.event), ['error']);
    const error = JSON.parse(events[0]!.data);
    assert.is(error.code, 'ORYX_E_LLM_FAILED');
    assert.match(error.message, 'upstream down');
    assert.type(error.hint, 'string');
  } finally {
    await h.close();
  }
});

test('SSE: errors found before the run starts are plain JSON with their status', async () => {
  const h = await startWeb({ web: { maxMessageBytes: 100 } });
  try {
    const missing = await post(`${h.url}/api/sessions/nope/messages`, { message: 'x' }, { ...h.auth, ...sse });
    assert.is(missing.status, 404);
    assert.match(missing.headers.get('content-type') ?? '', 'application/json');
    assert.is(((await missing.json()) as any).error.code, 'ORYX_E_SESSION_NOT_FOUND');
    const id = await newSession(h);
    const big = await post(`${h.url}/api/sessions/${id}/messages`, { message: 'z'.repeat(200) }, { ...h.auth, ...sse });
    assert.is(big.status, 413);
  } finally {
    await h.close();
  }
});

test('SSE: a run past invokeTimeoutMs ends with an error event ORYX_E_WEB_TIMEOUT', async () => {
  const h = await startWeb({ web: { invokeTimeoutMs: 150 }, script: [{ text: 'late', delayMs: 30_000 }] });
  try {
    const id = await newSession(h);
    const events = [];
    for await (const e of readSse((await post(`${h.url}/api/sessions/${id}/messages`, { message: 'slow' }, { ...h.auth, ...sse })).body!)) events.push(e);
    assert.equal(events.map((e) => e.event), ['error']);
    assert.is(JSON.parse(events[0]!.data).code, 'ORYX_E_WEB_TIMEOUT');
    assert.is(h.runs.at(-1)!.stopReason, 'aborted');
  } finally {
    await h.close();
  }
});

test.run();
