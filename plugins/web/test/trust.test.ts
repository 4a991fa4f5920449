// The checks that keep web pages in the user's browser from driving the server: Host (DNS
// rebinding), Origin (CSRF), JSON content type, security headers, and the caller identity
// the auth middleware hands to the routes.
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hostAllowed, parseHost } from '../src/host.ts';
import { post, rawRequest, startWeb, type Harness } from './helpers.ts';

const chat = JSON.stringify({ model: 'assistant', messages: [{ role: 'user', content: 'write the file' }] });

/** Nothing happened: no session stored, no model call. */
async function assertUntouched(h: Harness) {
  assert.is((await h.kernel.service('sessions').list()).items.length, 0, 'no session was created');
  assert.is(h.llm.requests.length, 0, 'the model was not called');
}

test('Host: a name the server does not answer to is refused with 421 before auth; IP addresses, localhost and allowedHosts pass', async () => {
  const h = await startWeb({ web: { allowedHosts: ['oryx.example.com', '.corp.test'] } });
  try {
    const port = new URL(h.url).port;
    for (const host of [`evil.example:${port}`, 'evil.example', `evilcorp.test:${port}`, `localhost.evil.example:${port}`]) {
      const res = await rawRequest(`${h.url}/api/info`, { headers: { host, ...h.auth } });
      assert.is(res.status, 421, host);
      const body = JSON.parse(res.body);
      assert.is(body.error.code, 'ORYX_E_WEB_BAD_HOST');
      assert.match(body.error.hint, 'allowedHosts');
    }
    // Before auth (no token) and on the open route too: a rebinding page learns nothing.
    assert.is((await rawRequest(`${h.url}/api/info`, { headers: { host: `evil.example:${port}` } })).status, 421);
    assert.is((await rawRequest(`${h.url}/health`, { headers: { host: `evil.example:${port}` } })).status, 421);
    const create = await rawRequest(`${h.url}/api/sessions`, {
      method: 'POST', headers: { host: `evil.example:${port}`, 'content-type': 'application/json', ...h.auth }, body: JSON.stringify({ agent: 'assistant' }),
    });
    assert.is(create.status, 421);
    await assertUntouched(h);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, `10.1.2.3:${port}`, 'oryx.example.com', `a.corp.test:${port}`, 'corp.test']) {
      assert.is((await rawRequest(`${h.url}/api/info`, { headers: { host, ...h.auth } })).status, 200, host);
    }
  } finally {
    await h.close();
  }
});

test('Host parsing refuses what is not a plain host[:port]; IP addresses never need listing', () => {
  assert.equal(parseHost('[::1]:8787'), { hostname: '::1', port: 8787 });
  assert.equal(parseHost('LocalHost.'), { hostname: 'localhost' });
  for (const bad of ['127.0.0.1@evil.example', 'evil.example/x', 'a b', '[evil.example]', '', 'host:port']) assert.is(parseHost(bad), undefined, bad);
  assert.ok(hostAllowed('192.168.1.20', '0.0.0.0', []));
  assert.ok(hostAllowed('::1', '127.0.0.1', []));
  assert.not.ok(hostAllowed('evil.example', '0.0.0.0', []));
  assert.ok(hostAllowed('box.lan', 'box.lan.', []));
});

test('Host: the name the server binds is answered', async () => {
  const h = await startWeb({ listen: false });
  try {
    const { url } = await h.web.listen({ host: 'localhost', port: 0 });
    const port = new URL(url).port;
    assert.is((await rawRequest(`http://127.0.0.1:${port}/health`, { headers: { host: `localhost:${port}` } })).status, 200);
    assert.is((await rawRequest(`http://127.0.0.1:${port}/health`, { headers: { host: `oryx.test:${port}` } })).status, 421);
  } finally {
    await h.close();
  }
});

test('Origin: a POST from another origin is refused with 403 before auth, and nothing runs; GET and same-origin pass', async () => {
  const h = await startWeb({ script: [{ text: 'should never be said' }] });
  try {
    const port = new URL(h.url).port;
    // The attack from the issue: a "simple" request any page can send with fetch(…, {mode: 'no-cors'}).
    for (const origin of ['https://evil.example', 'null', `http://127.0.0.1:${Number(port) + 1}`, `https://127.0.0.1:${Number(port) + 1}`]) {
      const res = await fetch(`${h.url}/v1/chat/completions`, { method: 'POST', headers: { origin, 'content-type': 'text/plain' }, body: chat });
      assert.is(res.status, 403, origin);
      const body = (await res.json()) as any;
      assert.is(body.error.code, 'ORYX_E_WEB_BAD_ORIGIN');
      assert.is(body.error.type, 'permission_error', 'the /v1 face adds the OpenAI error type');
    }
    // Even with the token (say, a page that learned it) the Origin check holds.
    const withToken = await post(`${h.url}/api/sessions`, { agent: 'assistant' }, { ...h.auth, origin: 'https://evil.example' });
    assert.is(withToken.status, 403);
    assert.match(((await withToken.json()) as any).error.message, 'https://evil.example');
    await assertUntouched(h);

    const own = await post(`${h.url}/api/sessions`, { agent: 'assistant' }, { ...h.auth, origin: h.url });
    assert.is(own.status, 201, 'the server\'s own origin');
    const id = ((await own.json()) as any).id;
    const viaLocalhost = await rawRequest(`${h.url}/api/sessions`, {
      method: 'POST', headers: { ...h.auth, host: `localhost:${port}`, origin: `http://localhost:${port}`, 'content-type': 'application/json' }, body: JSON.stringify({ agent: 'assistant' }),
    });
    assert.is(viaLocalhost.status, 201, 'own origin under another name the server answers to');
    const crossName = await rawRequest(`${h.url}/api/sessions`, {
      method: 'POST', headers: { ...h.auth, host: `127.0.0.1:${port}`, origin: `http://localhost:${port}`, 'content-type': 'application/json' }, body: JSON.stringify({ agent: 'assistant' }),
    });
    assert.is(crossName.status, 403, 'localhost and 127.0.0.1 are different origins');
    assert.is((await fetch(`${h.url}/api/sessions/${id}`, { headers: { ...h.auth, origin: 'https://evil.example' } })).status, 200, 'GET changes nothing');
    const del = await fetch(`${h.url}/api/sessions/${id}`, { method: 'DELETE', headers: { ...h.auth, origin: 'https://evil.example' } });
    assert.is(del.status, 403);
    assert.ok(await h.kernel.service('sessions').get(id), 'the session is still there');
  } finally {
    await h.close();
  }
});

test('Origin: a configured cors origin may POST (with the token); cors: true lets any origin through', async () => {
  const h = await startWeb({ web: { cors: ['http://app.test'] }, script: [{ text: 'hi from the agent' }] });
  try {
    const res = await post(`${h.url}/v1/chat/completions`, JSON.parse(chat), { ...h.auth, origin: 'http://app.test' });
    assert.is(res.status, 200);
    assert.is(res.headers.get('access-control-allow-origin'), 'http://app.test');
    assert.is(((await res.json()) as any).choices[0].message.content, 'hi from the agent');
    assert.is((await post(`${h.url}/api/sessions`, { agent: 'assistant' }, { ...h.auth, origin: 'http://other.test' })).status, 403);
    assert.is((await post(`${h.url}/api/sessions`, { agent: 'assistant' }, { origin: 'http://app.test' })).status, 401, 'the origin does not replace the token');
  } finally {
    await h.close();
  }
  const any = await startWeb({ web: { cors: true } });
  try {
    assert.is((await post(`${any.url}/api/sessions`, { agent: 'assistant' }, { ...any.auth, origin: 'http://anything.test' })).status, 201);
  } finally {
    await any.close();
  }
});

test('Content-Type: a POST whose body is not application/json is refused with 415 and nothing runs', async () => {
  const h = await startWeb({ script: [{ text: 'should never be said' }] });
  try {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', undefined]) {
      const headers: Record<string, string> = { ...h.auth, ...(type ? { 'content-type': type } : {}) };
      const res = await rawRequest(`${h.url}/v1/chat/completions`, { method: 'POST', headers, body: chat });
      assert.is(res.status, 415, String(type));
      const body = JSON.parse(res.body);
      assert.is(body.error.code, 'ORYX_E_WEB_CONTENT_TYPE');
      assert.match(body.error.message, type ? JSON.stringify(type) : 'no Content-Type');
      assert.is((await rawRequest(`${h.url}/api/sessions`, { method: 'POST', headers, body: '{"agent":"assistant"}' })).status, 415);
    }
    await assertUntouched(h);
    const withCharset = await post(`${h.url}/api/sessions`, { agent: 'assistant' }, { ...h.auth, 'content-type': 'Application/JSON; charset=utf-8' });
    assert.is(withCharset.status, 201);
  } finally {
    await h.close();
  }
});

test('security headers on every response: JSON, errors, the stream, and a CSP that lets /docs load only its own style', async () => {
  const h = await startWeb({ script: [{ text: 'streamed' }] });
  try {
    const expectHeaders = (res: Response, what: string) => {
      assert.is(res.headers.get('x-content-type-options'), 'nosniff', what);
      assert.is(res.headers.get('referrer-policy'), 'no-referrer', what);
      assert.is(res.headers.get('x-frame-options'), 'DENY', what);
      assert.match(res.headers.get('content-security-policy') ?? '', "frame-ancestors 'none'", what);
      assert.is(res.headers.get('strict-transport-security'), null, `${what}: no HSTS on plain HTTP`);
    };
    const api = await fetch(`${h.url}/api/info`, { headers: h.auth });
    expectHeaders(api, '/api/info');
    assert.match(api.headers.get('content-security-policy')!, "default-src 'none'");
    expectHeaders(await fetch(`${h.url}/health`), '/health');
    expectHeaders(await fetch(`${h.url}/api/info`), '401');
    expectHeaders(await fetch(`${h.url}/api/nowhere`, { headers: h.auth }), '404');
    expectHeaders(await post(`${h.url}/api/sessions`, { agent: 'assistant' }, { origin: 'https://evil.example' }), '403');
    expectHeaders(await rawRequest(`${h.url}/health`, { headers: { host: 'evil.example' } }).then((r) => new Response(null, { status: r.status, headers: r.headers as Record<string, string> })), '421');
    const stream = await post(`${h.url}/v1/chat/completions`, { ...JSON.parse(chat), stream: true }, h.auth);
    expectHeaders(stream, 'SSE');
    await stream.text();

    const docs = await fetch(`${h.url}/docs`, { headers: h.auth });
    expectHeaders(docs, '/docs');
    const csp = docs.headers.get('content-security-policy')!;
    const html = await docs.text();
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    const hash = createHash('sha256').update(style).digest('base64');
    assert.match(csp, `style-src 'sha256-${hash}'`, 'the CSP allows the page\'s own style by its hash');
    assert.match(csp, "default-src 'none'");
    assert.not.match(csp, 'unsafe-inline');
    assert.not.match(csp, 'script-src');
  } finally {
    await h.close();
  }
});

test('auth puts the caller identity on the context: the operator, who may name users', async () => {
  for (const web of [{}, { auth: 'none' as const }]) {
    const h = await startWeb({ web });
    try {
      h.web.app.get('/test/identity', (c) => c.json(c.get('identity') ?? null));
      const res = await fetch(`${h.url}/test/identity`, { headers: h.auth });
      assert.equal(await res.json(), { name: 'operator', namesUsers: true }, JSON.stringify(web));
      if (h.token) assert.is((await fetch(`${h.url}/test/identity`)).status, 401);
    } finally {
      await h.close();
    }
  }
});

test.run();
