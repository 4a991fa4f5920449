import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { memoryService, newSession, post, startWeb, type Harness } from './helpers.ts';

const json = async (res: Response) => (await res.json()) as any;

async function withWeb(options: Parameters<typeof startWeb>[0], fn: (h: Harness) => Promise<void>): Promise<void> {
  const h = await startWeb(options);
  try { await fn(h); } finally { await h.close(); }
}

function assertError(body: any, code: string) {
  assert.is(body.error.code, code);
  assert.type(body.error.message, 'string');
  assert.type(body.error.hint, 'string');
  assert.ok(body.error.hint.length > 0);
}

test('GET /health answers ok with a request id', () => withWeb({}, async (h) => {
  const res = await fetch(`${h.url}/health`);
  assert.is(res.status, 200);
  assert.equal(await res.json(), { status: 'ok' });
  assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
}));

test('an incoming x-request-id is honoured and appears in the log line; a malformed one is replaced', () => withWeb({}, async (h) => {
  const res = await fetch(`${h.url}/health`, { headers: { 'x-request-id': 'trace-abc.123' } });
  assert.is(res.headers.get('x-request-id'), 'trace-abc.123');
  assert.ok(h.logs.some((l) => l.includes('trace-abc.123') && l.includes('GET /health 200')), h.logs.join('\n'));
  const bad = await fetch(`${h.url}/health`, { headers: { 'x-request-id': 'has spaces and <html>' } });
  assert.is.not(bad.headers.get('x-request-id'), 'has spaces and <html>');
  assert.match(bad.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
}));

test('a request path with a line break or escape is logged as it came (percent-encoded): one line, nothing forged', () => withWeb({}, async (h) => {
  await fetch(`${h.url}/x%0Aweb%20admin-forged%20GET%20/api/info%20200%201ms%1B%5B2K`);
  const line = h.logs.find((l) => l.includes('admin-forged'))!;
  assert.match(line, /^web: [0-9a-f-]{36} GET \/x%0Aweb%20admin-forged%20GET%20\/api\/info%20200%201ms%1B%5B2K 401 \d+ms$/);
  assert.not.ok(h.logs.some((l) => /[\n\x1b]/.test(l) || l.startsWith('web admin-forged')), h.logs.join('\n'));
}));

test('GET /api/info lists plugins with versions, agents and uptime', () => withWeb({ agents: { assistant: {}, helper: {} } }, async (h) => {
  const res = await fetch(`${h.url}/api/info`, { headers: h.auth });
  assert.is(res.status, 200);
  const body = await json(res);
  assert.is(body.name, 'OryxOS');
  assert.is(body.version, h.kernel.version);
  assert.type(body.uptimeSeconds, 'number');
  assert.equal(body.agents, ['assistant', 'helper']);
  assert.ok(body.plugins.some((p: any) => p.name === 'web' && p.version === '0.1.0'));
  assert.ok(body.plugins.some((p: any) => p.name === 'provider-scripted'));
}));

test('GET /api/agents: description, provider, model, tools; a broken AGENT.md is listed with its error', () => withWeb({
  agents: {
    assistant: { description: 'helps', tools: ['echo', 'x_*'], model: 'm1' },
    plain: { description: 'plain one' },
    broken: '---\nsettings: { max_iterations: -1 }\n---\nbody\n',
  },
}, async (h) => {
  const body = await json(await fetch(`${h.url}/api/agents`, { headers: h.auth }));
  const byName = Object.fromEntries(body.items.map((a: any) => [a.name, a]));
  const { settings, file, ...assistant } = byName.assistant;
  assert.equal(assistant, { name: 'assistant', description: 'helps', provider: 'scripted', model: 'm1', tools: ['echo', 'x_*'], skills: [], agents: [] });
  assert.is(settings.max_iterations, 10);
  assert.match(file, /assistant\/AGENT\.md$/);
  assert.is(byName.plain.model, 'scripted-model', 'falls back to the provider default model');
  assert.is(byName.broken.error.code, 'ORYX_E_AGENT_INVALID');
}));

test('POST /api/sessions without agent uses the configured defaultAgent', () => withWeb({ agents: { assistant: {}, helper: {} }, defaultAgent: 'helper' }, async (h) => {
  const res = await post(`${h.url}/api/sessions`, { title: 'no agent named' }, h.auth);
  assert.is(res.status, 201);
  assert.is((await json(res)).agent, 'helper');
  assert.is((await post(`${h.url}/api/sessions`, {}, h.auth)).status, 201, 'an empty body too');
}));

test('POST /api/sessions/:id/messages refuses an empty or whitespace-only message with 400 naming the field', () => withWeb({}, async (h) => {
  const s = await json(await post(`${h.url}/api/sessions`, {}, h.auth));
  for (const [message, problem] of [['', /^message must be non-empty/], ['   ', /^message must be text, not only whitespace/], ['\n\t \n', /^message must be text, not only whitespace/]] as const) {
    const res = await post(`${h.url}/api/sessions/${s.id}/messages`, { message }, h.auth);
    assert.is(res.status, 400, JSON.stringify(message));
    const body = await json(res);
    assertError(body, 'ORYX_E_WEB_BAD_REQUEST');
    assert.match(body.error.message, problem);
  }
  assert.is((await h.kernel.service('sessions').get(s.id))!.messageCount, 0, 'nothing was stored');
  assert.is(h.llm.requests.length, 0, 'the model was not called');
}));

test('GET /api/agents/:name/memory: 404 naming the memory plugin without one; the zones with one; 404 for an unknown agent', async () => {
  await withWeb({}, async (h) => {
    const res = await fetch(`${h.url}/api/agents/assistant/memory`, { headers: h.auth });
    assert.is(res.status, 404);
    const body = await json(res);
    assertError(body, 'ORYX_E_WEB_NO_MEMORY');
    assert.match(body.error.hint, 'memory()');
    assert.match(body.error.hint, '@oryxos/plugin-memory');
  });
  const zones = { assistant: { core: [{ date: '2026-01-02', text: 'likes tea' }], archive: [{ date: '2026-01-01', text: 'old' }] } };
  await withWeb({ plugins: [memoryService(zones)] }, async (h) => {
    const res = await fetch(`${h.url}/api/agents/assistant/memory`, { headers: h.auth });
    assert.is(res.status, 200);
    assert.equal(await res.json(), { agent: 'assistant', path: '/memory/assistant/MEMORY.md', ...zones.assistant });
    const missing = await fetch(`${h.url}/api/agents/nobody/memory`, { headers: h.auth });
    assert.is(missing.status, 404);
    assertError(await json(missing), 'ORYX_E_AGENT_NOT_FOUND');
  });
});

const toolsPlugin = {
  name: 'test-tools', version: '1.0.0', kernel: '^1',
  setup(k: any) {
    for (const name of ['echo', 'shout']) {
      k.registerTool({
        name, description: `${name} text`, source: 'plugin',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        async execute(args: any) { return String(args.text); },
      });
    }
  },
};

test('GET /api/tools: every tool with schema and source; ?agent= applies its allow-list; unknown agent 404', () => withWeb({
  plugins: [toolsPlugin], agents: { assistant: { tools: ['echo'] } },
}, async (h) => {
  const all = await json(await fetch(`${h.url}/api/tools`, { headers: h.auth }));
  assert.equal(all.items.map((t: any) => t.name).sort(), ['echo', 'shout']);
  const echo = all.items.find((t: any) => t.name === 'echo');
  assert.equal(echo, {
    name: 'echo', description: 'echo text', source: 'plugin', plugin: 'test-tools',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  });
  assert.equal(all.sources, []);
  const mine = await json(await fetch(`${h.url}/api/tools?agent=assistant`, { headers: h.auth }));
  assert.is(mine.agent, 'assistant');
  assert.equal(mine.items.map((t: any) => t.name), ['echo']);
  const res = await fetch(`${h.url}/api/tools?agent=ghost`, { headers: h.auth });
  assert.is(res.status, 404);
  assertError(await json(res), 'ORYX_E_AGENT_NOT_FOUND');
}));

test('POST /api/sessions: 201 with the session and Location; 404 unknown agent; 400 naming the field', () => withWeb({}, async (h) => {
  const res = await post(`${h.url}/api/sessions`, { agent: 'assistant', title: 'first' }, h.auth);
  assert.is(res.status, 201);
  const s = await json(res);
  assert.is(s.agent, 'assistant');
  assert.is(s.title, 'first');
  assert.is(s.messageCount, 0);
  assert.is(res.headers.get('location'), `/api/sessions/${s.id}`);
  assert.ok(await h.kernel.service('sessions').get(s.id), 'stored');

  const unknown = await post(`${h.url}/api/sessions`, { agent: 'ghost' }, h.auth);
  assert.is(unknown.status, 404);
  assertError(await json(unknown), 'ORYX_E_AGENT_NOT_FOUND');


  const wrongType = await post(`${h.url}/api/sessions`, { agent: 42 }, h.auth);
  assert.is(wrongType.status, 400);
  assert.match((await json(wrongType)).error.message, /agent must be/);

  const extra = await post(`${h.url}/api/sessions`, { agent: 'assistant', colour: 'red' }, h.auth);
  assert.is(extra.status, 400);
  assert.match((await json(extra)).error.message, 'colour');

  const malformed = await post(`${h.url}/api/sessions`, '{"agent": ', h.auth);
  assert.is(malformed.status, 400);
  assertError(await json(malformed), 'ORYX_E_WEB_BAD_JSON');
}));

test('GET /api/sessions: filtered by agent and paged with cursor; bad limit 400', () => withWeb({ agents: { assistant: {}, other: {} } }, async (h) => {
  const mine = [];
  for (let i = 0; i < 5; i++) mine.push(await newSession(h));
  await newSession(h, 'other');
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await json(await fetch(`${h.url}/api/sessions?agent=assistant&limit=2${cursor ? `&cursor=${cursor}` : ''}`, { headers: h.auth }));
    assert.ok(page.items.length <= 2);
    for (const s of page.items) { assert.is(s.agent, 'assistant'); seen.push(s.id); }
    cursor = page.nextCursor;
    pages++;
  } while (cursor && pages < 10);
  assert.is(pages, 3);
  assert.equal(seen.sort(), mine.sort());
  const all = await json(await fetch(`${h.url}/api/sessions`, { headers: h.auth }));
  assert.is(all.items.length, 6);
  for (const q of ['limit=0', 'limit=101', 'limit=abc']) {
    const res = await fetch(`${h.url}/api/sessions?${q}`, { headers: h.auth });
    assert.is(res.status, 400, q);
    const body = await json(res);
    assertError(body, 'ORYX_E_WEB_BAD_REQUEST');
    assert.match(body.error.message, 'limit');
  }
}));

test('GET /api/sessions/:id: the session with its last messages; limit; 404', () => withWeb({
  script: [{ text: 'one' }, { text: 'two' }],
}, async (h) => {
  const id = await newSession(h);
  for (const message of ['first', 'second']) assert.is((await post(`${h.url}/api/sessions/${id}/messages`, { message }, h.auth)).status, 200);
  const s = await json(await fetch(`${h.url}/api/sessions/${id}`, { headers: h.auth }));
  assert.is(s.id, id);
  assert.is(s.messageCount, 4);
  assert.equal(s.messages.map((m: any) => [m.message.role, m.message.content]), [['user', 'first'], ['assistant', 'one'], ['user', 'second'], ['assistant', 'two']]);
  const last = await json(await fetch(`${h.url}/api/sessions/${id}?limit=1`, { headers: h.auth }));
  assert.equal(last.messages.map((m: any) => m.message.content), ['two']);
  const over = await fetch(`${h.url}/api/sessions/${id}?limit=500`, { headers: h.auth });
  assert.is(over.status, 400);
  const missing = await fetch(`${h.url}/api/sessions/nope`, { headers: h.auth });
  assert.is(missing.status, 404);
  assertError(await json(missing), 'ORYX_E_SESSION_NOT_FOUND');
}));

test('DELETE /api/sessions/:id: 204, then 404', () => withWeb({}, async (h) => {
  const id = await newSession(h);
  const res = await fetch(`${h.url}/api/sessions/${id}`, { headers: h.auth, method: 'DELETE' });
  assert.is(res.status, 204);
  assert.is(await res.text(), '');
  assert.is(await h.kernel.service('sessions').get(id), undefined);
  const again = await fetch(`${h.url}/api/sessions/${id}`, { headers: h.auth, method: 'DELETE' });
  assert.is(again.status, 404);
  assertError(await json(again), 'ORYX_E_SESSION_NOT_FOUND');
}));

test('POST /api/sessions/:id/messages runs the agent: answer, stopReason, iterations, usage', () => withWeb({
  plugins: [toolsPlugin],
  script: [{ toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'ping' } }], usage: { inputTokens: 3, outputTokens: 2 } }, { text: 'pong', usage: { inputTokens: 4, outputTokens: 1 } }],
}, async (h) => {
  const id = await newSession(h);
  const res = await post(`${h.url}/api/sessions/${id}/messages`, { message: 'go' }, h.auth);
  assert.is(res.status, 200);
  const { runId, budget, ...body } = await res.json() as Record<string, any>;
  assert.equal(body, { sessionId: id, answer: 'pong', stopReason: 'final', iterations: 2, usage: { inputTokens: 7, outputTokens: 3 } });
  assert.type(runId, 'string');
  assert.equal([budget.tokens, budget.toolCalls], [10, 1]);
  assert.equal(h.llm.requests[0]!.messages.at(-1), { role: 'user', content: 'go' });
  const stored = await h.kernel.service('sessions').messages(id);
  assert.equal(stored.map((s) => s.message.role), ['user', 'assistant', 'tool', 'assistant']);
}));

test('POST messages: stopReason limit is a 200 answer; a failing model is 502 with the run error', () => withWeb({
  plugins: [toolsPlugin],
  agents: { assistant: { tools: ['echo'], settings: { max_iterations: 1 } } },
  script: [{ text: 'thinking', toolCalls: [{ name: 'echo', args: { text: 'a' } }] }, { text: 'what I have so far' }, { error: new Error('model exploded') }],
}, async (h) => {
  const id = await newSession(h);
  const limited = await json(await post(`${h.url}/api/sessions/${id}/messages`, { message: 'loop' }, h.auth));
  assert.is(limited.stopReason, 'limit');
  assert.is(limited.answer, 'what I have so far', 'the answer of the last, tool-less call');
  const failed = await post(`${h.url}/api/sessions/${id}/messages`, { message: 'again' }, h.auth);
  assert.is(failed.status, 502);
  const body = await json(failed);
  assertError(body, 'ORYX_E_LLM_FAILED');
  assert.match(body.error.message, 'model exploded');
}));

test('POST messages: 404 unknown session; 400 empty message or wrong field; 413 over maxMessageBytes, raw or parsed', () => withWeb({
  web: { maxMessageBytes: 1000 }, script: [{ text: 'ok' }],
}, async (h) => {
  const missing = await post(`${h.url}/api/sessions/nope/messages`, { message: 'hi' }, h.auth);
  assert.is(missing.status, 404);
  assertError(await json(missing), 'ORYX_E_SESSION_NOT_FOUND');
  const id = await newSession(h);
  const empty = await post(`${h.url}/api/sessions/${id}/messages`, { message: '' }, h.auth);
  assert.is(empty.status, 400);
  assert.match((await json(empty)).error.message, 'message');
  const wrong = await post(`${h.url}/api/sessions/${id}/messages`, { text: 'hi' }, h.auth);
  assert.is(wrong.status, 400);
  assert.match((await json(wrong)).error.message, 'message');

  // Far over: refused from the raw size, before any parsing (this body is not even JSON).
  const huge = await post(`${h.url}/api/sessions/${id}/messages`, 'x'.repeat(50_000), h.auth);
  assert.is(huge.status, 413);
  assertError(await json(huge), 'ORYX_E_WEB_TOO_LARGE');
  // Chunked upload without Content-Length: counted while streaming.
  const chunks = new ReadableStream({ start(c) { for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode('y'.repeat(1000))); c.close(); } });
  const streamed = await fetch(`${h.url}/api/sessions/${id}/messages`, { headers: { ...h.auth, 'content-type': 'application/json' }, method: 'POST', body: chunks, duplex: 'half' } as RequestInit);
  assert.is(streamed.status, 413);
  // Just over in the message itself (the body fits the envelope allowance): 413 naming the message.
  const justOver = await post(`${h.url}/api/sessions/${id}/messages`, { message: 'é'.repeat(501) }, h.auth);
  assert.is(justOver.status, 413);
  assert.match((await json(justOver)).error.message, '1002 bytes');
  assert.is((await h.kernel.service('sessions').messages(id)).length, 0, 'nothing was written');
  const fits = await post(`${h.url}/api/sessions/${id}/messages`, { message: 'a'.repeat(1000) }, h.auth);
  assert.is(fits.status, 200);
}));

test('unknown routes are JSON 404s', () => withWeb({}, async (h) => {
  const res = await fetch(`${h.url}/api/nothing`, { headers: h.auth });
  assert.is(res.status, 404);
  assertError(await json(res), 'ORYX_E_WEB_NOT_FOUND');
  const method = await fetch(`${h.url}/health`, { method: 'DELETE' });
  assert.is(method.status, 404);
}));

test.run();
