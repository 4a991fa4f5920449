// Every run a request starts carries the request as its origin, as data: route, method, path,
// request id, and the W3C trace context the client sent, so a tracing plugin (which the web
// plugin does not import) can make the request the run's parent and continue the caller's trace.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { STAGE, type Plugin, type RunOrigin } from '@oryxos/kernel';
import { echoTool, toolsPlugin } from '@oryxos/kernel/testing';
import approvals from '@oryxos/plugin-approvals';
import sqlite from '@oryxos/plugin-sqlite';
import { allSse, newSession, post, startWeb } from './helpers.ts';

function originRecorder(seen: (RunOrigin | undefined)[]): Plugin {
  return { name: 'origins', version: '1.0.0', kernel: '^1', setup(k) { k.hooks.runStart.tapPromise({ stage: STAGE.OBSERVE }, async (run) => { seen.push(run.origin); }); } };
}

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

test('messages (whole and streamed), /v1/chat/completions and a decided approval each give their run the request as origin', async () => {
  const seen: (RunOrigin | undefined)[] = [];
  const echo = echoTool();
  const h = await startWeb({
    script: [{ text: 'a' }, { text: 'b' }, { text: 'c' }, { toolCalls: [{ id: 'c1', name: 'echo', args: { text: 'x' } }] }, { text: 'd' }],
    plugins: [originRecorder(seen), toolsPlugin(echo), sqlite(), approvals()],
    agents: { assistant: { tools: ['echo'], approve: ['echo'] } },
  });
  try {
    const id = await newSession(h);
    const trace = { traceparent: TRACEPARENT, tracestate: 'vendor=1' };
    assert.is((await post(`${h.url}/api/sessions/${id}/messages`, { message: 'hi' }, { ...h.auth, ...trace, 'x-request-id': 'req-1' })).status, 200);
    const streamed = await post(`${h.url}/api/sessions/${id}/messages`, { message: 'hi' }, { ...h.auth, accept: 'text/event-stream' });
    await allSse(streamed);
    assert.is((await post(`${h.url}/v1/chat/completions`, { model: 'assistant', messages: [{ role: 'user', content: 'hi' }] }, { ...h.auth, ...trace })).status, 200);
    const paused = await post(`${h.url}/api/sessions/${id}/messages`, { message: 'go' }, h.auth);
    assert.is(paused.status, 202);
    const approval = ((await paused.json()) as { approval: { id: string } }).approval;
    assert.is((await post(`${h.url}/api/approvals/${approval.id}`, { decision: 'approve' }, { ...h.auth, ...trace })).status, 200);

    assert.is(seen.length, 5);
    const [first, second, third, , fifth] = seen;
    assert.equal({ ...first, startedAt: typeof first?.startedAt }, {
      name: 'POST /api/sessions/:id/messages', startedAt: 'number',
      attributes: { 'http.request.method': 'POST', 'http.route': '/api/sessions/:id/messages', 'url.path': `/api/sessions/${id}/messages`, 'oryx.request.id': 'req-1' },
      carrier: trace,
    });
    assert.is(second?.name, 'POST /api/sessions/:id/messages');
    assert.is(second?.carrier, undefined, 'no trace context sent, none carried');
    assert.equal([third?.name, third?.carrier], ['POST /v1/chat/completions', trace]);
    assert.equal([fifth?.name, fifth?.attributes?.['http.route'], fifth?.carrier], ['POST /api/approvals/:id', '/api/approvals/:id', trace], 'the continued run');
  } finally {
    await h.close();
  }
});

test('a browser on another origin may send the trace context headers (CORS)', async () => {
  const h = await startWeb({ web: { cors: ['https://app.example.com'] } });
  try {
    const res = await fetch(`${h.url}/api/sessions`, {
      method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'traceparent,tracestate' },
    });
    assert.match(res.headers.get('access-control-allow-headers') ?? '', /traceparent.*tracestate/);
  } finally {
    await h.close();
  }
});

test.run();
