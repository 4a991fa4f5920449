// DNS rebinding through the confinement proxy: a confined program asks the OryxOS proxy for a
// name that the wildcard `*.wild.test` allows. The attacker's DNS server (resolver.ts, the one
// part replaced) answers a public address first and 127.0.0.1 afterwards, where a loopback
// server stands for an internal service. The proxy must look the name up once and connect to
// the address it checked, for plain HTTP and for CONNECT tunnels alike. Real bubblewrap, socat,
// proxy and audit rows.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import audit from '@oryxos/plugin-audit';
import sqlite from '@oryxos/plugin-sqlite';
import tools from '@oryxos/plugin-tools';
import sandbox from '../src/index.ts';
import { afterToolProbe } from './fixture.ts';
import { scriptedResolver } from './resolver.ts';

const NODE = process.execPath;
let root: string;
let internal: http.Server;
let port: number;
let hits = 0;

test.before(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'oryx-proxy-dns-'));
  // Every TCP connection counts, whatever is sent on it.
  internal = http.createServer((_req, res) => { res.end('INTERNAL-ONLY'); });
  internal.on('connection', () => { hits++; });
  internal.listen(0, '127.0.0.1');
  await once(internal, 'listening');
  port = (internal.address() as AddressInfo).port;
});
test.after(async () => {
  internal.closeAllConnections();
  internal.close();
  await rm(root, { recursive: true, force: true });
});

const PROXY = `const http = require('http'); const proxy = new URL(process.env.HTTP_PROXY);`;
const plain = `${PROXY}
  http.get({ host: proxy.hostname, port: proxy.port, path: 'http://rebind.wild.test:PORT/secret', timeout: 3000 }, (r) => {
    let b = ''; r.on('data', (d) => b += d); r.on('end', () => console.log('plain', r.statusCode, b.trim()));
  }).on('error', (e) => console.log('plain error', e.code)).on('timeout', function () { console.log('plain timeout'); this.destroy(); });`;
const tunnel = `${PROXY}
  const s = require('net').connect(proxy.port, proxy.hostname, () => s.write('CONNECT rebind.wild.test:PORT HTTP/1.1\\r\\nHost: rebind.wild.test:PORT\\r\\n\\r\\n'));
  s.setTimeout(3000, () => { console.log('tunnel timeout'); s.destroy(); });
  s.on('data', (d) => { console.log('tunnel', String(d).split('\\r\\n')[0]); s.destroy(); });
  s.on('error', (e) => console.log('tunnel error', e.code));`;

for (const [kind, code, row] of [['a plain-HTTP request', plain, 'allow http'], ['a CONNECT tunnel', tunnel, 'allow connect']] as const) {
  test(`${kind} through the proxy goes to the address the proxy checked: its one lookup, never a second that answers loopback`, async () => {
    hits = 0;
    const resolver = scriptedResolver({ 'rebind.wild.test': ['9.9.9.9', '127.0.0.1'] });
    const seen: Parameters<typeof afterToolProbe>[0] = [];
    const llm = scripted([{ toolCalls: [{ id: 'c1', name: 'shell', args: { command: NODE, args: ['-e', code.replaceAll('PORT', String(port))] } }] }, { text: 'done' }]);
    const t = await testKernel({
      dir: root, agents: { assistant: { tools: ['*'] } },
      plugins: [llm, sqlite(), audit(), sandbox({ files: { read: ['.'] }, exec: { allow: [{ command: NODE, args: ['-e'], rest: '[\\s\\S]*' }] }, http: { allow: [`http://*.wild.test:${port}`] } }), tools(), afterToolProbe(seen)],
    });
    try {
      await t.service.process({ agent: 'assistant', message: 'go' });
      const out = seen[0]!.result.content;
      assert.is(hits, 0, `the loopback server was reached: ${out}`);
      assert.not.match(out, /INTERNAL-ONLY/);
      assert.is(resolver.asked['rebind.wild.test'], 1, `one lookup, checked and connected to: ${out}`);
      const rows = await t.kernel.service('database').query<{ decision: string; kind: string }>("SELECT decision, kind FROM sandbox_events WHERE origin LIKE 'proxy for %' ORDER BY id");
      assert.is(rows.map((r) => `${r.decision} ${r.kind}`).at(-1), row, 'allowed on the public answer');
    } finally {
      resolver.restore();
      await t.close({ keep: true });
    }
  });
}

test.run();
