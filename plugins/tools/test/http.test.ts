import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { one, server, tempDir, type Server } from './harness.ts';

let dir: string;
let cleanup: () => Promise<void>;
const servers: Server[] = [];
test.before.each(async () => { ({ dir, cleanup } = await tempDir()); });
test.after.each(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await cleanup();
});

async function serve(handler: Parameters<typeof server>[0]): Promise<Server> {
  const s = await server(handler);
  servers.push(s);
  return s;
}
const allow = (...urls: string[]) => ({ sandbox: { http: { allow: urls } } });
const get = (url: string, extra: Record<string, unknown> = {}) => ({ name: 'http_request', args: { url, ...extra } });

test('GET: status, headers and body', async () => {
  const s = await serve((_req, res) => { res.writeHead(200, { 'content-type': 'text/plain', 'x-thing': 'yes' }); res.end('hello'); });
  const r = await one(dir, get(`${s.url}/hi?q=1`), allow(s.url));
  assert.is(r.status, 'ok');
  assert.match(r.content, /^HTTP 200 OK\nurl: http:\/\/127\.0\.0\.1:\d+\/hi\?q=1\n/);
  assert.match(r.content, /^x-thing: yes$/m);
  assert.match(r.content, /--- body \(5 bytes\) ---\nhello$/);
  assert.is(s.hits.length, 1);
  assert.is(s.hits[0]!.method, 'GET');
});

test('POST sends the body and headers as given', async () => {
  const s = await serve((req, res, body) => { res.writeHead(201, { 'content-type': 'application/json' }); res.end(JSON.stringify({ got: body, h: req.headers['x-token'] })); });
  const r = await one(dir, get(`${s.url}/items`, { method: 'POST', headers: { 'x-token': 'abc', 'content-type': 'application/json' }, body: '{"a":1}' }), allow(s.url));
  assert.is(r.status, 'ok');
  assert.match(r.content, /HTTP 201 Created/);
  assert.match(r.content, /\{"got":"\{\\"a\\":1\}","h":"abc"\}/);
  assert.is(s.hits[0]!.headers['content-type'], 'application/json');
});

test('4xx is an error result; 5xx and 429 are retryable', async () => {
  const s = await serve((req, res) => { res.writeHead(req.url === '/busy' ? 503 : req.url === '/slow-down' ? 429 : 404); res.end('nope'); });
  const notFound = await one(dir, get(`${s.url}/missing`), allow(s.url));
  const busy = await one(dir, get(`${s.url}/busy`), allow(s.url));
  const limited = await one(dir, get(`${s.url}/slow-down`), allow(s.url));
  assert.is(notFound.status, 'error');
  assert.is(notFound.result.retryable, false);
  assert.match(notFound.content, /^HTTP 404 Not Found/);
  assert.equal([busy.result.retryable, limited.result.retryable], [true, true]);
});

test('redirects: 303 turns POST into GET without body; 307 keeps both', async () => {
  const s = await serve((req, res) => {
    if (req.url === '/see-other') { res.writeHead(303, { location: '/final' }); res.end(); return; }
    if (req.url === '/temporary') { res.writeHead(307, { location: '/final' }); res.end(); return; }
    res.end(`${req.method}`);
  });
  const post = { method: 'POST', body: 'payload', headers: { 'content-type': 'text/plain' } };
  const r303 = await one(dir, get(`${s.url}/see-other`, post), allow(s.url));
  const r307 = await one(dir, get(`${s.url}/temporary`, post), allow(s.url));
  assert.match(r303.content, /redirects: 303 http:\/\/127\.0\.0\.1:\d+\/final/);
  assert.equal(s.hits.map((h) => `${h.method} ${h.url} ${h.body}`), [
    'POST /see-other payload', 'GET /final ', 'POST /temporary payload', 'POST /final payload',
  ]);
  assert.match(r307.content, /--- body \(4 bytes\) ---\nPOST$/);
});

test('credentials do not follow a redirect to another origin, but do on the same origin', async () => {
  const other = await serve((_req, res) => { res.end('other'); });
  const s = await serve((req, res) => {
    if (req.url === '/away') { res.writeHead(302, { location: `${other.url}/landing` }); res.end(); return; }
    if (req.url === '/near') { res.writeHead(302, { location: '/landing' }); res.end(); return; }
    res.end('same');
  });
  const headers = { authorization: 'Bearer t0ken', cookie: 'sid=1', 'x-keep': 'k' };
  await one(dir, get(`${s.url}/away`, { headers }), allow(s.url, other.url));
  await one(dir, get(`${s.url}/near`, { headers }), allow(s.url, other.url));
  const landed = other.hits[0]!.headers;
  assert.equal([landed.authorization, landed.cookie, landed['x-keep']], [undefined, undefined, 'k']);
  assert.is(s.hits.at(-1)!.headers.authorization, 'Bearer t0ken');
});

test('a redirect loop stops after maxRedirects', async () => {
  const s = await serve((_req, res) => { res.writeHead(302, { location: '/again' }); res.end(); });
  const r = await one(dir, get(`${s.url}/start`), { ...allow(s.url), tools: { maxRedirects: 2 } });
  assert.is(r.status, 'error');
  assert.match(r.content, /stopped after 2 redirects/);
  assert.is(s.hits.length, 3);
});

test('a slow server times out after httpTimeoutMs (retryable)', async () => {
  const s = await serve((_req, res) => { const t = setTimeout(() => res.end('late'), 10_000); res.on('close', () => clearTimeout(t)); });
  const r = await one(dir, get(`${s.url}/slow`), { ...allow(s.url), tools: { httpTimeoutMs: 200 } });
  assert.is(r.status, 'error');
  assert.match(r.content, /timed out after 200 ms/);
  assert.is(r.result.retryable, true);
});

test('a body that stalls halfway also times out', async () => {
  const s = await serve((_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.write('part'); });
  const r = await one(dir, get(`${s.url}/stall`), { ...allow(s.url), tools: { httpTimeoutMs: 300 } });
  assert.is(r.status, 'error');
  assert.match(r.content, /timed out after 300 ms/);
});

test('an oversized body is cut, with its full length reported', async () => {
  const s = await serve((_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('z'.repeat(1_000_000)); });
  const r = await one(dir, get(`${s.url}/big`), { ...allow(s.url), tools: { maxOutputChars: 100 } });
  assert.is(r.status, 'ok');
  assert.match(r.content, new RegExp(`--- body \\(1000000 bytes; only the first 100 characters are shown\\) ---\\n${'z'.repeat(100)}$`));
});

test('reading stops at maxResponseBytes', async () => {
  const s = await serve((_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('z'.repeat(1_000_000)); });
  const r = await one(dir, get(`${s.url}/big`), { ...allow(s.url), tools: { maxOutputChars: 100, maxResponseBytes: 50_000 } });
  assert.match(r.content, /--- body \(more than 50000 bytes; reading stopped there; only the first 100 characters are shown\) ---/);
});

test('a binary body is described, not dumped', async () => {
  const s = await serve((_req, res) => { res.writeHead(200, { 'content-type': 'image/png' }); res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2])); });
  const r = await one(dir, get(`${s.url}/img`), allow(s.url));
  assert.match(r.content, /--- body \(7 bytes, image\/png: not text, not shown\) ---$/);
});

test('a binary body labelled as text (or not labelled) is reported as binary too', async () => {
  const s = await serve((_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end(Buffer.from([0x1f, 0x8b, 8, 0, 0xff])); });
  const r = await one(dir, get(`${s.url}/gz`), allow(s.url));
  assert.match(r.content, /--- body \(binary, 5 bytes, application\/gzip though labelled text\/plain: not shown\) ---$/);
});

test('refused requests: Host header, GET with a body, bad URL, nothing listening', async () => {
  const s = await serve((_req, res) => { res.end('x'); });
  const host = await one(dir, get(`${s.url}/`, { headers: { Host: 'other.test' } }), allow(s.url));
  const body = await one(dir, get(`${s.url}/`, { body: 'x' }), allow(s.url));
  const closedPort = s.port;
  await s.close();
  servers.splice(servers.indexOf(s), 1);
  const refused = await one(dir, get(`http://127.0.0.1:${closedPort}/`), allow(`http://127.0.0.1:${closedPort}`));
  assert.match(host.content, /the Host header cannot be set/);
  assert.match(body.content, /a GET request cannot have a body/);
  assert.is(refused.status, 'error');
  assert.match(refused.content, /failed: ECONNREFUSED/);
  assert.is(refused.result.retryable, true);
  assert.is(s.hits.length, 0);
});

test.run();
