import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deferred, newSession, post, readSse, startWeb } from './helpers.ts';

function gate() {
  const started = deferred();
  const release = deferred();
  const plugin = {
    name: 'gate', version: '1.0.0', kernel: '^1',
    setup(k: any) {
      k.registerTool({
        name: 'wait', description: 'waits for the test', source: 'plugin', inputSchema: { type: 'object' },
        async execute(_args: unknown, ctx: { signal: AbortSignal }) {
          started.resolve();
          await Promise.race([release.promise, new Promise((r) => ctx.signal.addEventListener('abort', r, { once: true }))]);
          return 'waited';
        },
      });
    },
  };
  return { started, release, plugin };
}

test('close(): a run in flight finishes within the grace period and its answer is delivered', async () => {
  const g = gate();
  const h = await startWeb({ plugins: [g.plugin], script: [{ toolCalls: [{ name: 'wait' }] }, { text: 'finished in time' }] });
  try {
    const id = await newSession(h);
    const pending = post(`${h.url}/api/sessions/${id}/messages`, { message: 'work' }, h.auth);
    await g.started.promise;
    const closing = h.web.close({ graceMs: 30_000 });
    // New requests are refused while draining (the listener is closed: checked through the app).
    const refused = await h.web.app.request('/health');
    assert.is(refused.status, 503);
    assert.is(((await refused.json()) as any).error.code, 'ORYX_E_WEB_SHUTTING_DOWN');
    g.release.resolve();
    const res = await pending;
    assert.is(res.status, 200);
    assert.is(((await res.json()) as any).answer, 'finished in time');
    assert.equal(await closing, { finished: 1, aborted: 0 });
    assert.is(h.web.url, h.url, 'url stays readable');
    const stored = await h.kernel.service('sessions').messages(id);
    assert.is(stored.at(-1)!.message.content, 'finished in time');
    let refusedConnection = false;
    await fetch(`${h.url}/health`).catch(() => { refusedConnection = true; });
    assert.ok(refusedConnection, 'the port is closed');
  } finally {
    await h.close();
  }
});

test('close(): past the grace period the run is aborted, the client gets 503 (JSON) or an error event (SSE)', async () => {
  const g = gate();
  const h = await startWeb({ plugins: [g.plugin], script: [{ toolCalls: [{ name: 'wait' }] }] });
  try {
    const a = await newSession(h);
    const pending = post(`${h.url}/api/sessions/${a}/messages`, { message: 'work' }, h.auth);
    await g.started.promise;
    const report = await h.web.close({ graceMs: 20 });
    assert.equal(report, { finished: 0, aborted: 1 });
    const res = await pending;
    assert.is(res.status, 503);
    assert.is(((await res.json()) as any).error.code, 'ORYX_E_WEB_SHUTTING_DOWN');
    assert.is(h.runs[0]!.stopReason, 'aborted');
    // The tool call and its result were committed: the session is consistent.
    const stored = await h.kernel.service('sessions').messages(a);
    assert.equal(stored.map((s) => s.message.role), ['user', 'assistant', 'tool']);
  } finally {
    await h.close();
  }

  const g2 = gate();
  const h2 = await startWeb({ plugins: [g2.plugin], script: [{ toolCalls: [{ name: 'wait' }] }] });
  try {
    const b = await newSession(h2);
    const res = await post(`${h2.url}/api/sessions/${b}/messages`, { message: 'work' }, { ...h2.auth, accept: 'text/event-stream' });
    await g2.started.promise;
    const events: string[] = [];
    const reading = (async () => { for await (const e of readSse(res.body!)) events.push(`${e.event}:${e.event === 'error' ? JSON.parse(e.data).code : ''}`); })();
    await h2.web.close({ graceMs: 0 });
    await reading;
    assert.equal(events, ['usage:', 'tool_call:', 'tool_result:', 'error:ORYX_E_WEB_SHUTTING_DOWN']);
  } finally {
    await h2.close();
  }
});

test('kernel.close() stops the server first (close hook)', async () => {
  const h = await startWeb();
  await h.close();
  let refused = false;
  await fetch(`${h.url}/health`).catch(() => { refused = true; });
  assert.ok(refused);
});

test('listen() reports a port in use as ORYX_E_WEB_LISTEN', async () => {
  const a = await startWeb();
  const b = await startWeb({ listen: false });
  try {
    const port = Number(new URL(a.url).port);
    let error: any;
    await b.web.listen({ port }).catch((e) => { error = e; });
    assert.is(error?.code, 'ORYX_E_WEB_LISTEN');
    assert.match(error.hint, 'in use');
    await a.web.listen({ port: 0 }).catch((e) => { error = e; });
    assert.match(error.message, 'Already listening');
  } finally {
    await a.close();
    await b.close();
  }
});

test.run();
