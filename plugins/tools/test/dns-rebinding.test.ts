// DNS rebinding on a wildcard http.allow entry: `*.wild.test` is allowed, and the sandbox lets
// a name it matches only by wildcard through when every address it resolves to is public. The
// attacker's DNS server (../../sandbox/test/resolver.ts: the one part replaced, answering from
// a script and counting questions) answers a public address while the name is being checked and
// 127.0.0.1 afterwards, where a loopback server stands for an internal service. The request must
// go to the address that was checked: one lookup at the point of I/O, and never the loopback.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scriptedResolver } from '../../sandbox/test/resolver.ts';
import { one, server, tempDir, type Server } from './harness.ts';

let dir: string;
let cleanup: () => Promise<void>;
let internal: Server;
test.before.each(async () => {
  ({ dir, cleanup } = await tempDir());
  internal = await server((_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('INTERNAL-ONLY'); });
});
test.after.each(async () => {
  await internal.close();
  await cleanup();
});

const options = () => ({
  sandbox: { files: { read: ['.'] }, http: { allow: [`http://*.wild.test:${internal.port}`] } },
  tools: { httpTimeoutMs: 2000 },
});

test('a name that answers public, then loopback: the request goes to the public address it was checked on, never to the loopback', async () => {
  // 1st answer: the kernel's check of the call's actions; 2nd: the tool's own lookup, which it
  // checks and connects to; a 3rd question would get 127.0.0.1.
  const resolver = scriptedResolver({ 'rebind.wild.test': ['9.9.9.9', '9.9.9.9', '127.0.0.1'] });
  try {
    const r = await one(dir, { name: 'http_request', args: { url: `http://rebind.wild.test:${internal.port}/secret` } }, options());
    assert.is(internal.hits.length, 0, `the request reached the loopback server: ${r.content}`);
    assert.not.match(r.content, /INTERNAL-ONLY/);
    assert.is(resolver.asked['rebind.wild.test'], 2, 'one lookup to check the call, one at the point of I/O, none to connect');
  } finally {
    resolver.restore();
  }
});

test('a name whose lookup at the point of I/O answers loopback is denied on that answer', async () => {
  const resolver = scriptedResolver({ 'rebind.wild.test': ['9.9.9.9', '127.0.0.1'] });
  try {
    const r = await one(dir, { name: 'http_request', args: { url: `http://rebind.wild.test:${internal.port}/secret` } }, options());
    assert.is(r.status, 'denied', r.content);
    assert.match(r.content, /host rebind\.wild\.test resolves to 127\.0\.0\.1, a private, loopback or link-local address; it matched only the wildcard/);
    assert.is(internal.hits.length, 0);
    assert.is(resolver.asked['rebind.wild.test'], 2);
  } finally {
    resolver.restore();
  }
});

test('control: a name listed exactly is trusted and reached at what it resolves to, once', async () => {
  const resolver = scriptedResolver({ 'internal.test': ['127.0.0.1'] });
  try {
    const r = await one(dir, { name: 'http_request', args: { url: `http://internal.test:${internal.port}/ok` } }, {
      sandbox: { files: { read: ['.'] }, http: { allow: [`http://internal.test:${internal.port}`] } },
    });
    assert.is(r.status, 'ok', r.content);
    assert.match(r.content, /INTERNAL-ONLY/);
    assert.is(internal.hits.length, 1);
    assert.is(internal.hits[0]!.headers.host, `internal.test:${internal.port}`, 'the Host header is the name, not the address');
    assert.is(resolver.asked['internal.test'], 1, 'only the tool looks it up: a host listed by name needs no check of its addresses');
  } finally {
    resolver.restore();
  }
});

test.run();
