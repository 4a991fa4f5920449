import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChatRequest } from '@oryxos/provider-spec';
import { deferred, newSession, post, readSse, startWeb } from './helpers.ts';

const lastUser = (r: ChatRequest) => [...r.messages].reverse().find((m) => m.role === 'user')!.content;

test('two POSTs to one session at once: served one after the other, both exchanges stored in order', async () => {
  const step = (r: ChatRequest) => ({ text: `answer to ${lastUser(r)}`, delayMs: 40 });
  const h = await startWeb({ script: [step, step] });
  try {
    const id = await newSession(h);
    const [a, b] = await Promise.all([
      post(`${h.url}/api/sessions/${id}/messages`, { message: 'A' }, h.auth),
      post(`${h.url}/api/sessions/${id}/messages`, { message: 'B' }, h.auth),
    ]);
    assert.is(a.status, 200);
    assert.is(b.status, 200);
    assert.is(((await a.json()) as any).answer, 'answer to A');
    assert.is(((await b.json()) as any).answer, 'answer to B');
    const stored = (await h.kernel.service('sessions').messages(id)).map((s) => `${s.message.role}:${s.message.content}`);
    const first = stored[0] === 'user:A' ? 'A' : 'B';
    const second = first === 'A' ? 'B' : 'A';
    assert.equal(stored, [`user:${first}`, `assistant:answer to ${first}`, `user:${second}`, `assistant:answer to ${second}`]);
    // The second run saw the first exchange in its prompt.
    const prompt = h.llm.requests[1]!.messages.filter((m) => m.role !== 'system').map((m) => m.content);
    assert.equal(prompt, [first, `answer to ${first}`, second]);
  } finally {
    await h.close();
  }
});

test('a run past invokeTimeoutMs: 504, the run is aborted, the session stays consistent and usable', async () => {
  const h = await startWeb({ web: { invokeTimeoutMs: 150 }, script: [{ text: 'too late', delayMs: 30_000 }, { text: 'on time' }] });
  try {
    const id = await newSession(h);
    const res = await post(`${h.url}/api/sessions/${id}/messages`, { message: 'slow one' }, h.auth);
    assert.is(res.status, 504);
    const body = (await res.json()) as any;
    assert.is(body.error.code, 'ORYX_E_WEB_TIMEOUT');
    assert.match(body.error.message, '150 ms');
    assert.is(h.runs[0]!.stopReason, 'aborted');
    const after = await h.kernel.service('sessions').messages(id);
    assert.equal(after.map((s) => [s.message.role, s.message.content]), [['user', 'slow one']]);
    const next = await post(`${h.url}/api/sessions/${id}/messages`, { message: 'quick one' }, h.auth);
    assert.is(next.status, 200);
    assert.is(((await next.json()) as any).answer, 'on time');
    const final = await h.kernel.service('sessions').messages(id);
    assert.equal(final.map((s) => s.message.role), ['user', 'user', 'assistant']);
    assert.ok(h.logs.some((l) => / POST \/api\/sessions\/[^ ]+\/messages 504 /.test(l)), 'the 504 is logged');
  } finally {
    await h.close();
  }
});

test('a client that disconnects mid-stream aborts its run (provider signal aborted, stopReason aborted)', async () => {
  const started = deferred<AbortSignal>();
  const h = await startWeb({
    script: [(request) => { started.resolve(request.signal!); return { text: 'never sent', delayMs: 30_000 }; }, { text: 'next' }],
  });
  try {
    const id = await newSession(h);
    const res = await post(`${h.url}/api/sessions/${id}/messages`, { message: 'long' }, { ...h.auth, accept: 'text/event-stream' });
    const reader = res.body!.getReader();
    const signal = await started.promise;
    assert.is(signal.aborted, false);
    await reader.cancel();
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    assert.ok(signal.aborted);
    for (let i = 0; i < 100 && h.runs.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.is(h.runs[0]!.stopReason, 'aborted');
    assert.is(h.web.inFlight, 0);
    // The session is consistent and the next run goes ahead.
    const next = await post(`${h.url}/api/sessions/${id}/messages`, { message: 'again' }, h.auth);
    assert.is(((await next.json()) as any).answer, 'next');
    assert.ok(h.logs.some((l) => l.includes('run aborted (disconnect)')));
  } finally {
    await h.close();
  }
});

test('a non-streaming client that disconnects also aborts its run', async () => {
  const started = deferred<AbortSignal>();
  const h = await startWeb({ script: [(request) => { started.resolve(request.signal!); return { text: 'x', delayMs: 30_000 }; }] });
  try {
    const id = await newSession(h);
    const client = new AbortController();
    const pending = fetch(`${h.url}/api/sessions/${id}/messages`, {
      method: 'POST', headers: { ...h.auth, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'long' }), signal: client.signal,
    }).catch((e) => e);
    const signal = await started.promise;
    client.abort();
    await pending;
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    for (let i = 0; i < 100 && h.runs.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.is(h.runs[0]!.stopReason, 'aborted');
  } finally {
    await h.close();
  }
});

test('a request queued behind a run that leaves before its turn writes nothing to the session', async () => {
  const release = deferred();
  const started = deferred();
  const blocker = {
    name: 'blocker', version: '1.0.0', kernel: '^1',
    setup(k: any) {
      k.registerTool({
        name: 'block', description: 'waits for the test', source: 'plugin', inputSchema: { type: 'object' },
        async execute() { started.resolve(); await release.promise; return 'released'; },
      });
    },
  };
  const h = await startWeb({
    plugins: [blocker], listen: false,
    script: [{ toolCalls: [{ name: 'block' }] }, { text: 'first done' }],
  });
  try {
    const session = await h.kernel.service('sessions').create({ agent: 'assistant' });
    const first = h.web.runner.invoke({ agent: 'assistant', session: session.id, message: 'one', stream: false });
    await started.promise;
    const gone = new AbortController();
    const second = h.web.runner.invoke({ agent: 'assistant', session: session.id, message: 'two', stream: false, clientSignal: gone.signal });
    gone.abort();
    const outcome = await second;
    assert.equal(outcome, { aborted: 'disconnect' });
    release.resolve();
    assert.is((await first).result!.answer, 'first done');
    const stored = await h.kernel.service('sessions').messages(session.id);
    assert.equal(stored.map((s) => s.message.content), ['one', '', 'released', 'first done']);
    assert.is(h.llm.requests.length, 2, 'the second request never reached the model');
  } finally {
    await h.close();
  }
});

test.run();
