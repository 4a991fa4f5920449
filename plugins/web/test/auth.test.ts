import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { OryxError } from '@oryxos/provider-spec';
import web, { assertSafeBind, isLoopback, safeEqual } from '../src/index.ts';
import { post, startWeb } from './helpers.ts';

const TOKEN = 'a-long-random-secret-for-tests';

test('with a token: 401 without it or with a wrong one, 200 with it; /health stays open', async () => {
  const h = await startWeb({ web: { token: TOKEN } });
  try {
    for (const path of ['/api/info', '/api/agents', '/api/sessions', '/openapi.json', '/docs', '/v1/models']) {
      const none = await fetch(`${h.url}${path}`);
      assert.is(none.status, 401, path);
      const body = (await none.json()) as any;
      assert.is(body.error.code, 'ORYX_E_WEB_UNAUTHORIZED');
      assert.match(body.error.hint, 'Authorization: Bearer');
      assert.is((await fetch(`${h.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}x` } })).status, 401, path);
      assert.is((await fetch(`${h.url}${path}`, { headers: { authorization: `Basic ${TOKEN}` } })).status, 401, path);
      assert.is((await fetch(`${h.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 200, path);
    }
    const create = await post(`${h.url}/api/sessions`, { agent: 'assistant' });
    assert.is(create.status, 401);
    assert.is((await h.kernel.service('sessions').list()).items.length, 0, 'nothing was created');
    const health = await fetch(`${h.url}/health`);
    assert.is(health.status, 200);
    // Unknown routes do not reveal themselves before auth either.
    assert.is((await fetch(`${h.url}/api/secret`)).status, 401);
  } finally {
    await h.close();
  }
});

test('by default a token is generated: every route but /health needs it; auth: none opens them', async () => {
  const h = await startWeb();
  try {
    assert.ok(h.token && h.token.length >= 40, 'a generated token of 256 bits (base64url)');
    assert.is((await fetch(`${h.url}/api/info`)).status, 401);
    assert.is((await post(`${h.url}/api/sessions`, { agent: 'assistant' })).status, 401);
    assert.is((await fetch(`${h.url}/api/info`, { headers: h.auth })).status, 200);
    assert.is((await fetch(`${h.url}/health`)).status, 200);
  } finally {
    await h.close();
  }
  const open = await startWeb({ web: { auth: 'none' } });
  try {
    assert.equal(open.auth, {});
    assert.is((await fetch(`${open.url}/api/info`)).status, 200);
    assert.is((await post(`${open.url}/api/sessions`, { agent: 'assistant' })).status, 201);
    assert.ok(open.logs.some((l) => l.startsWith('warn: ') && l.includes("auth: 'none'")), 'listen() warns');
    await access(path.join(open.kernel.config.workspaceDir, 'web-token')).then(() => assert.unreachable('no token file with auth: none'), () => {});
  } finally {
    await open.close();
  }
});

test('ORYX_WEB_TOKEN is the default token; an explicit option wins', async () => {
  process.env.ORYX_WEB_TOKEN = 'token-from-the-environment';
  try {
    const h = await startWeb();
    try {
      assert.is((await fetch(`${h.url}/api/info`)).status, 401);
      assert.is((await fetch(`${h.url}/api/info`, { headers: { authorization: 'Bearer token-from-the-environment' } })).status, 200);
    } finally {
      await h.close();
    }
    const h2 = await startWeb({ web: { token: TOKEN } });
    try {
      assert.is((await fetch(`${h2.url}/api/info`, { headers: { authorization: 'Bearer token-from-the-environment' } })).status, 401);
      assert.is((await fetch(`${h2.url}/api/info`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 200);
    } finally {
      await h2.close();
    }
  } finally {
    delete process.env.ORYX_WEB_TOKEN;
  }
});

test('refuses to bind a non-loopback host with auth: none when the server starts', async () => {
  const expectNoToken = (fn: () => unknown) => {
    try { fn(); } catch (error) {
      assert.instance(error, OryxError);
      assert.is((error as OryxError).code, 'ORYX_E_WEB_NO_TOKEN');
      assert.match((error as OryxError).hint ?? '', "auth: 'none'");
      return;
    }
    assert.unreachable('should have thrown');
  };
  for (const host of ['0.0.0.0', '::', '10.1.2.3', 'example.internal']) expectNoToken(() => assertSafeBind(host, 'none'));
  assertSafeBind('0.0.0.0', 'token');
  assertSafeBind('localhost', 'none');

  // The configured host, at listen().
  const configured = await startWeb({ web: { host: '0.0.0.0', auth: 'none' }, listen: false });
  try {
    let error: unknown;
    await configured.web.listen({ port: 0 }).catch((e) => { error = e; });
    assert.is((error as OryxError).code, 'ORYX_E_WEB_NO_TOKEN');
    assert.is(configured.web.url, undefined, 'nothing was bound');
  } finally {
    await configured.close();
  }
  // A host given to listen() (what `oryx web --host` does).
  const h = await startWeb({ web: { auth: 'none' }, listen: false });
  try {
    let error: unknown;
    await h.web.listen({ host: '::', port: 0 }).catch((e) => { error = e; });
    assert.is((error as OryxError).code, 'ORYX_E_WEB_NO_TOKEN');
    assert.is(h.web.url, undefined, 'nothing was bound');
  } finally {
    await h.close();
  }
});

test('loopback detection', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', 'api.localhost']) assert.ok(isLoopback(host), host);
  for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.1', 'example.com', '128.0.0.1', '::ffff:10.0.0.1']) assert.not.ok(isLoopback(host), host);
});

test('safeEqual compares exactly, whatever the lengths', () => {
  assert.ok(safeEqual(TOKEN, TOKEN));
  assert.not.ok(safeEqual(TOKEN, `${TOKEN}x`));
  assert.not.ok(safeEqual(TOKEN.slice(0, -1), TOKEN));
  assert.not.ok(safeEqual('', TOKEN));
});

test('options are validated at once, naming the field', () => {
  const expectOption = (options: unknown, field: string) => {
    try { web(options as never); } catch (error) {
      assert.is((error as OryxError).code, 'ORYX_E_WEB_OPTIONS');
      assert.match((error as OryxError).message, field);
      return;
    }
    assert.unreachable(`${JSON.stringify(options)} should be refused`);
  };
  expectOption({ port: 70000 }, 'port');
  expectOption({ port: 1.5 }, 'port');
  expectOption({ token: 'short' }, 'token');
  expectOption({ maxMessageBytes: 0 }, 'maxMessageBytes');
  expectOption({ invokeTimeoutMs: -1 }, 'invokeTimeoutMs');
  expectOption({ cors: 5 }, 'cors');
  expectOption({ auth: 'basic' }, 'auth');
  expectOption({ auth: 'none', token: TOKEN }, 'auth');
  expectOption({ allowedHosts: ['https://oryx.example.com'] }, 'allowedHosts.0');
  expectOption({ allowedHosts: ['ok.example', 'oryx.example.com:8080'] }, 'allowedHosts.1');
  expectOption({ colour: 'red' }, 'colour');
  process.env.ORYX_WEB_TOKEN = 'tiny';
  try { expectOption({}, 'ORYX_WEB_TOKEN'); } finally { delete process.env.ORYX_WEB_TOKEN; }
});

test('CORS: off by default; with an origin the preflight is answered without the token', async () => {
  const off = await startWeb();
  try {
    const res = await fetch(`${off.url}/api/info`, { headers: { ...off.auth, origin: 'http://app.test' } });
    assert.is(res.headers.get('access-control-allow-origin'), null);
  } finally {
    await off.close();
  }
  const h = await startWeb({ web: { cors: 'http://app.test', token: TOKEN } });
  try {
    const preflight = await fetch(`${h.url}/api/sessions`, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    assert.is(preflight.status, 204);
    assert.is(preflight.headers.get('access-control-allow-origin'), 'http://app.test');
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', 'authorization');
    const res = await fetch(`${h.url}/api/info`, { headers: { origin: 'http://app.test', authorization: `Bearer ${TOKEN}` } });
    assert.is(res.status, 200);
    assert.is(res.headers.get('access-control-allow-origin'), 'http://app.test');
    assert.match(res.headers.get('access-control-expose-headers') ?? '', 'x-request-id');
  } finally {
    await h.close();
  }
});

test.run();
