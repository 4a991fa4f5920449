// The request checks run in one of two places: the Node front (a request through the socket)
// or the app's admission middleware (app.request(), paths the front leaves to Hono, a token not
// loaded yet). Both use the same Gate; these tests send the same requests through each entry
// and expect the same answers, headers and log lines.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rawRequest, startWeb, type Harness } from './helpers.ts';

const SECURITY = {
  'content-security-policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

interface Case { name: string; method?: string; path: string; headers?: Record<string, string>; body?: string; status: number; code?: string }

/** Requests whose answers do not depend on the entry, with the token where it is `TOKEN`. */
function cases(token: string, port: string): Case[] {
  const auth = { authorization: `Bearer ${token}` };
  const json = { 'content-type': 'application/json' };
  return [
    { name: 'health', path: '/health', status: 200 },
    { name: 'no token', path: '/api/info', status: 401, code: 'ORYX_E_WEB_UNAUTHORIZED' },
    { name: 'wrong token', path: '/api/info', headers: { authorization: `Bearer ${token.slice(0, -1)}x` }, status: 401, code: 'ORYX_E_WEB_UNAUTHORIZED' },
    { name: 'longer token', path: '/api/info', headers: { authorization: `Bearer ${token}x` }, status: 401, code: 'ORYX_E_WEB_UNAUTHORIZED' },
    { name: 'not bearer', path: '/api/info', headers: { authorization: `Basic ${token}` }, status: 401, code: 'ORYX_E_WEB_UNAUTHORIZED' },
    { name: 'token', path: '/api/info', headers: auth, status: 200 },
    { name: 'unknown path, no token', path: '/api/nothing', status: 401, code: 'ORYX_E_WEB_UNAUTHORIZED' },
    { name: 'unknown path', path: '/api/nothing', headers: auth, status: 404, code: 'ORYX_E_WEB_NOT_FOUND' },
    { name: 'bad host', path: '/health', headers: { host: `evil.example:${port}` }, status: 421, code: 'ORYX_E_WEB_BAD_HOST' },
    { name: 'bad host, token', path: '/api/info', headers: { host: 'evil.example', ...auth }, status: 421, code: 'ORYX_E_WEB_BAD_HOST' },
    {
      name: 'foreign origin', method: 'POST', path: '/api/sessions', headers: { origin: 'https://evil.example', ...json, ...auth }, body: '{}',
      status: 403, code: 'ORYX_E_WEB_BAD_ORIGIN',
    },
    { name: 'text body', method: 'POST', path: '/api/sessions', headers: { 'content-type': 'text/plain', ...auth }, body: '{}', status: 415, code: 'ORYX_E_WEB_CONTENT_TYPE' },
    { name: 'no token before content type', method: 'POST', path: '/api/sessions', headers: { 'content-type': 'text/plain' }, body: '{}', status: 401, code: 'ORYX_E_WEB_UNAUTHORIZED' },
    // Paths Hono routes otherwise than they read: the routed path decides what needs the token.
    { name: 'escaped open path', path: '/%68ealth', status: 200 },
    { name: 'dot segments to a closed path', path: '/assets/../api/info', status: 401, code: 'ORYX_E_WEB_UNAUTHORIZED' },
    { name: 'dot segments, token', path: '/assets/../api/info', headers: auth, status: 200 },
  ];
}

async function answer(h: Harness, via: 'socket' | 'app', c: Case, port: string) {
  if (via === 'socket') {
    const res = await rawRequest(h.url, { method: c.method, path: c.path, headers: { host: `127.0.0.1:${port}`, ...c.headers }, body: c.body });
    return { status: res.status, headers: res.headers as Record<string, string | undefined>, body: res.body };
  }
  const res = await h.web.app.request(`http://127.0.0.1:${port}${c.path}`, { method: c.method, headers: c.headers, body: c.body });
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}

test('every check answers the same through the socket and through app.request(): status, code, security headers, request id, log line', async () => {
  const h = await startWeb();
  try {
    const port = new URL(h.url).port;
    for (const c of cases(h.token!, port)) {
      for (const via of ['socket', 'app'] as const) {
        const what = `${c.name} via ${via}`;
        const before = h.logs.length;
        const res = await answer(h, via, { ...c, headers: { 'x-request-id': `${via}-${c.name.replace(/\W+/g, '-')}`, ...c.headers } }, port);
        assert.is(res.status, c.status, what);
        if (c.code) assert.is(JSON.parse(res.body).error.code, c.code, what);
        for (const [name, value] of Object.entries(SECURITY)) assert.is(res.headers[name], value, `${what}: ${name}`);
        const id = `${via}-${c.name.replace(/\W+/g, '-')}`;
        assert.is(res.headers['x-request-id'], id, what);
        const line = h.logs.slice(before).find((l) => l.includes(id));
        assert.ok(line, `${what}: logged`);
        assert.match(line!, ` ${c.method ?? 'GET'} `);
        assert.match(line!, new RegExp(` ${c.status} \\d+ms$`), what);
      }
    }
  } finally {
    await h.close();
  }
});

test('a route\'s own security header wins over the default, through both entries', async () => {
  const h = await startWeb();
  try {
    for (const via of ['socket', 'app'] as const) {
      const res = await answer(h, via, { name: 'docs', path: '/docs', headers: { authorization: `Bearer ${h.token}` }, status: 200 }, new URL(h.url).port);
      assert.match(res.headers['content-security-policy']!, "style-src 'sha256-", via);
      assert.is(res.headers['x-frame-options'], 'DENY', via);
    }
  } finally {
    await h.close();
  }
});

test('the shutdown gate answers app.request() too: 503, the connection closed, the security headers', async () => {
  const h = await startWeb({ script: [{ text: 'slow', delayMs: 400 }] });
  try {
    const port = new URL(h.url).port;
    // A run in flight keeps the server up while it drains.
    const session = (await h.kernel.service('sessions').create({ agent: 'assistant' })).id;
    const running = rawRequest(`${h.url}/api/sessions/${session}/messages`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${h.token}` }, body: '{"message":"hi"}',
    });
    while (h.llm.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    const closing = h.web.close({ graceMs: 5_000 });
    const app = await h.web.app.request(`http://127.0.0.1:${port}/health`);
    assert.is(app.status, 503);
    assert.is(((await app.json()) as any).error.code, 'ORYX_E_WEB_SHUTTING_DOWN');
    assert.is(app.headers.get('connection'), 'close');
    assert.is(app.headers.get('x-frame-options'), 'DENY');
    assert.is((await running).status, 200);
    assert.equal(await closing, { finished: 1, aborted: 0 });
  } finally {
    await h.close();
  }
});

test('a token file read while serving: the first request waits for it, the ones after compare at once', async () => {
  const h = await startWeb({ listen: false });
  try {
    // No listen(): the token was read by the harness through token(); a rotation replaces it.
    const fresh = await h.web.rotateToken();
    const { url } = await h.web.listen({ port: 0 });
    assert.is((await rawRequest(`${url}/api/info`, { headers: { authorization: `Bearer ${h.token}` } })).status, 401, 'the old token is refused');
    assert.is((await rawRequest(`${url}/api/info`, { headers: { authorization: `Bearer ${fresh}` } })).status, 200);
    const again = h.web.rotateToken();
    // Asked while the new file is being written: checked by the middleware once it is read.
    const during = rawRequest(`${url}/api/info`, { headers: { authorization: `Bearer ${fresh}` } });
    const newest = await again;
    assert.is((await during).status, 401, 'the rotated-out token is refused');
    assert.is((await rawRequest(`${url}/api/info`, { headers: { authorization: `Bearer ${newest}` } })).status, 200);
  } finally {
    await h.close();
  }
});

test('a run answers the same through the socket (written straight to Node) and through app.request(); with CORS on, the socket answer carries its headers', async () => {
  for (const web of [{}, { cors: ['http://app.test'] }]) {
    const h = await startWeb({ web, script: [{ text: 'first' }, { text: 'second' }] });
    try {
      const port = new URL(h.url).port;
      const id = (await h.kernel.service('sessions').create({ agent: 'assistant' })).id;
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${h.token}`, ...(web.cors ? { origin: 'http://app.test' } : {}) };
      const viaSocket = await answer(h, 'socket', { name: 'run', method: 'POST', path: `/api/sessions/${id}/messages`, headers, body: '{"message":"one"}', status: 200 }, port);
      const viaApp = await answer(h, 'app', { name: 'run', method: 'POST', path: `/api/sessions/${id}/messages`, headers, body: '{"message":"two"}', status: 200 }, port);
      for (const [via, res, text] of [['socket', viaSocket, 'first'], ['app', viaApp, 'second']] as const) {
        assert.is(res.status, 200, via);
        assert.is(res.headers['content-type'], 'application/json', via);
        assert.is(res.headers['x-frame-options'], 'DENY', via);
        const body = JSON.parse(res.body);
        assert.equal(Object.keys(body).sort(), ['answer', 'budget', 'iterations', 'runId', 'sessionId', 'stopReason', 'usage'], via);
        assert.is(body.answer, text, via);
        assert.is(body.sessionId, id, via);
        if (web.cors) assert.is(res.headers['access-control-allow-origin'], 'http://app.test', `${via} with CORS`);
      }
      if (web.cors) assert.is((await answer(h, 'socket', { name: 'health', path: '/health', headers: { origin: 'http://app.test' }, status: 200 }, port)).headers['access-control-allow-origin'], 'http://app.test');
    } finally {
      await h.close();
    }
  }
});

test.run();
