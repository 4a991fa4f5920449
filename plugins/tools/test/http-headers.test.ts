// The headers a plugin puts on a tool call (ToolCallInfo.headers: a tracing plugin's W3C
// `traceparent`) go with every request http_request sends for it, redirects included, over a
// header of the same name the model set.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Plugin } from '@oryxos/kernel';
import sandbox from '@oryxos/plugin-sandbox';
import { one, server, tempDir } from './harness.ts';

const TRACEPARENT = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
const tracer: Plugin = {
  name: 'tracer', version: '1.0.0', kernel: '^1',
  setup(ctx) { ctx.hooks.beforeTool.tapPromise(async (info) => { info.headers.traceparent = TRACEPARENT; return undefined; }); },
};

test('http_request sends the call\'s headers on each hop, over the model\'s own', async () => {
  const { dir, cleanup } = await tempDir();
  const s = await server((req, res) => {
    if (req.url === '/start') { res.writeHead(307, { location: '/end' }); res.end(); return; }
    res.end('ok');
  });
  try {
    const r = await one(dir, { name: 'http_request', args: { url: `${s.url}/start`, headers: { traceparent: 'forged', 'x-model': 'm' } } }, {
      plugins: [sandbox({ files: { read: ['.'] }, http: { allow: [s.url] } }), tracer],
    });
    assert.is(r.status, 'ok', r.content);
    assert.equal(s.hits.map((h) => [h.url, h.headers.traceparent, h.headers['x-model']]), [['/start', TRACEPARENT, 'm'], ['/end', TRACEPARENT, 'm']]);
  } finally {
    await s.close();
    await cleanup();
  }
});

test.run();
