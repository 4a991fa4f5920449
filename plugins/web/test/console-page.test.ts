// The console's page and files as the server sends them (the built bundle in dist/console: build
// first, `npm test` does): no token needed, a strict CSP, hashed files cached for good, gzip, and
// nothing else opened up. The browser tests (test/console.test.ts) drive the page itself.
import { gunzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { acceptsGzip, CONSOLE_CSP, loadConsole } from '../src/console-assets.ts';
import { rawRequest, startWeb } from './helpers.ts';

/** The files the page names: its script, style sheet and icon. */
const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="(assets\/[^"]+)"/g)].map((m) => m[1]!);

test('GET / serves the page without a token, under a CSP with no inline script or style, never cached stale', async () => {
  const h = await startWeb();
  try {
    const res = await fetch(`${h.url}/`);
    assert.is(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', 'text/html');
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.is(csp, CONSOLE_CSP);
    for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "object-src 'none'", "frame-ancestors 'none'", "base-uri 'none'"]) {
      assert.ok(csp.split('; ').includes(directive), directive);
    }
    assert.not.match(csp, /unsafe|\*|https?:/, 'nothing inline, nothing from elsewhere');
    assert.is(res.headers.get('cache-control'), 'no-cache');
    assert.is(res.headers.get('x-frame-options'), 'DENY');
    assert.is(res.headers.get('x-content-type-options'), 'nosniff');
    const html = await res.text();
    assert.not.match(html, /<style|style=|<script>|<script(?![^>]*\bsrc=)|\son[a-z]+=|https?:\/\//i, 'no inline script, style or handler; no other origin');
    const assets = assetsOf(html);
    assert.equal(assets.map((a) => a.replace(/-[A-Za-z0-9]+\./, '-HASH.')).sort(), ['assets/console-HASH.css', 'assets/console-HASH.js', 'assets/icon-HASH.svg']);
  } finally {
    await h.close();
  }
});

test('the page and its files are at most 150 KB, served from memory with long caching, gzip and ETags', async () => {
  const h = await startWeb();
  try {
    const html = await (await fetch(`${h.url}/`)).text();
    let total = Buffer.byteLength(html);
    for (const asset of assetsOf(html)) {
      const res = await fetch(`${h.url}/${asset}`, { headers: { 'accept-encoding': 'identity' } });
      assert.is(res.status, 200, asset);
      assert.is(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.is(res.headers.get('content-security-policy'), CONSOLE_CSP);
      assert.is(res.headers.get('content-encoding'), null);
      const type = res.headers.get('content-type') ?? '';
      assert.match(type, asset.endsWith('.js') ? 'text/javascript' : asset.endsWith('.css') ? 'text/css' : 'image/svg+xml');
      const body = Buffer.from(await res.arrayBuffer());
      total += body.length;

      const zipped = await rawRequest(`${h.url}/${asset}`, { headers: { 'accept-encoding': 'br;q=1, gzip;q=0.8' } });
      if (body.length > 1024) {
        assert.is(zipped.headers['content-encoding'], 'gzip', asset);
        assert.is(zipped.headers.vary, 'accept-encoding');
      }
      const etag = res.headers.get('etag')!;
      assert.match(etag, /^"[\w-]{22}"$/);
      assert.is((await fetch(`${h.url}/${asset}`, { headers: { 'if-none-match': etag } })).status, 304);
    }
    assert.ok(total <= 150 * 1024, `the console is ${total} bytes`);
    assert.ok(total > 20 * 1024, 'the bundle is really there');
  } finally {
    await h.close();
  }
});

test('gzip bodies are the same bytes, and Accept-Encoding is read with its q values', async () => {
  const bundle = await loadConsole();
  const [name, file] = [...bundle.assets].find(([n]) => n.endsWith('.js'))!;
  assert.ok(file.gzip, `${name} has a gzip form`);
  assert.equal(gunzipSync(file.gzip!), Buffer.from(file.body));
  assert.ok(acceptsGzip('gzip, deflate, br'));
  assert.ok(acceptsGzip('*'));
  assert.not.ok(acceptsGzip('gzip;q=0'));
  assert.not.ok(acceptsGzip('br, identity'));
  assert.not.ok(acceptsGzip(undefined));
});

test('only the page and its files are open: unknown files are 404, everything else still needs the token, the Host check still holds', async () => {
  const h = await startWeb();
  try {
    for (const path of ['/assets/nope.js', '/assets/..%2F..%2Fpackage.json', '/assets/%2e%2e%2fsrc%2findex.ts', '/assets/index.html']) {
      const res = await fetch(`${h.url}${path}`);
      assert.is(res.status, 404, path);
      assert.is(((await res.json()) as any).error.code, 'ORYX_E_WEB_NOT_FOUND');
    }
    for (const path of ['/index.html', '/api/info', '/assets', '/console']) assert.is((await fetch(`${h.url}${path}`)).status, 401, path);
    const port = new URL(h.url).port;
    assert.is((await rawRequest(`${h.url}/`, { headers: { host: `evil.example:${port}` } })).status, 421);
  } finally {
    await h.close();
  }
});

test('web({ console: false }) serves no page: / is an unknown path like any other', async () => {
  const h = await startWeb({ web: { console: false } });
  try {
    assert.is((await fetch(`${h.url}/`)).status, 401);
    assert.is((await fetch(`${h.url}/`, { headers: h.auth })).status, 404);
    assert.not.ok(h.web.endpoints.some((e) => e.path === '/'));
  } finally {
    await h.close();
  }
});

test('a console that was never built fails clearly: ORYX_E_WEB_NO_CONSOLE naming the build', async () => {
  try {
    await loadConsole('/nonexistent/console');
    assert.unreachable();
  } catch (error: any) {
    assert.is(error.code, 'ORYX_E_WEB_NO_CONSOLE');
    assert.match(error.message, '/nonexistent/console');
    assert.match(error.hint, 'npm run build');
  }
});

test.run();
