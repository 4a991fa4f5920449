// Faults get the right status: a bad cursor is 400, deleting a running session aborts the run
// (its client gets 410), user text with NUL or a lone surrogate is refused naming the position,
// and no malformed request to any endpoint gets a 5xx. On the real sqlite store.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sqlite from '@oryxos/plugin-sqlite';
import type { Plugin } from '@oryxos/kernel';
import type { Script } from '@oryxos/kernel/testing';
import { allSse, newSession, post, startWeb } from './helpers.ts';

async function withSqlite(script: Script, fn: (h: Awaited<ReturnType<typeof startWeb>>) => Promise<void>, listen = true, plugins: Plugin[] = []): Promise<void> {
  const dbDir = await mkdtemp(path.join(tmpdir(), 'oryx-web-integrity-'));
  const h = await startWeb({ plugins: [sqlite({ url: `file:${path.join(dbDir, 'oryx.db')}` }), ...plugins], script, listen });
  try {
    await fn(h);
  } finally {
    await h.close();
    await rm(dbDir, { recursive: true, force: true });
  }
}

const waitFor = async (check: () => boolean) => { while (!check()) await new Promise((r) => setTimeout(r, 5)); };

test('GET /api/sessions with a cursor the store did not return is 400 naming the cursor', async () => {
  await withSqlite([], async (h) => {
    for (const cursor of ['abc', Buffer.from('["x"]').toString('base64url'), '%E2%80%8B']) {
      const res = await fetch(`${h.url}/api/sessions?cursor=${cursor}`, { headers: h.auth });
      assert.is(res.status, 400, cursor);
      const { error } = (await res.json()) as any;
      assert.is(error.code, 'ORYX_E_WEB_BAD_REQUEST');
      assert.match(error.message, 'cursor');
      assert.match(error.hint, 'nextCursor');
    }
  });
});

test('DELETE while a run is in flight aborts it first: its client gets 410, the session is gone', async () => {
  await withSqlite([{ text: 'never', delayMs: 30_000 }, { text: 'never either', delayMs: 30_000 }], async (h) => {
    const id = await newSession(h);
    const running = post(`${h.url}/api/sessions/${id}/messages`, { message: 'take your time' }, h.auth);
    await waitFor(() => h.llm.requests.length === 1);
    const del = await fetch(`${h.url}/api/sessions/${id}`, { method: 'DELETE', headers: h.auth });
    assert.is(del.status, 204);
    const res = await running;
    assert.is(res.status, 410);
    const { error } = (await res.json()) as any;
    assert.is(error.code, 'ORYX_E_WEB_SESSION_DELETED');
    assert.match(error.hint, 'new session');
    assert.is((await fetch(`${h.url}/api/sessions/${id}`, { headers: h.auth })).status, 404);
    assert.is(h.runs.at(-1)?.stopReason, 'aborted');

    // streamed: the stream ends with an error event carrying the same code
    const other = await newSession(h);
    const streaming = fetch(`${h.url}/api/sessions/${other}/messages`, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...h.auth }, body: JSON.stringify({ message: 'stream it' }),
    });
    await waitFor(() => h.llm.requests.length === 2);
    assert.is((await fetch(`${h.url}/api/sessions/${other}`, { method: 'DELETE', headers: h.auth })).status, 204);
    const events = await allSse(await streaming);
    assert.is(events.at(-1)?.event, 'error');
    assert.is(JSON.parse(events.at(-1)!.data).code, 'ORYX_E_WEB_SESSION_DELETED');
    assert.not.ok(h.logs.some((l) => /ORYX_E_SQLITE_SESSION_NOT_FOUND| 500 /.test(l)), h.logs.join('\n'));
  });
});

test('user text with a NUL or a lone surrogate is refused with 400 naming its position; other text is kept exactly', async () => {
  await withSqlite([{ text: 'ok' }], async (h) => {
    const id = await newSession(h);
    const cases: [string, string][] = [['"a\\u0000b"', 'NUL character (U+0000) at index 1'], ['"\\u0000"', 'at index 0'], ['"ok \\ud800"', 'lone surrogate (U+D800) at index 3']];
    for (const [json, says] of cases) {
      const res = await post(`${h.url}/api/sessions/${id}/messages`, `{"message":${json}}`, h.auth);
      assert.is(res.status, 400, json);
      const { error } = (await res.json()) as any;
      assert.is(error.code, 'ORYX_E_WEB_BAD_REQUEST');
      assert.match(error.message, says);
    }
    const v1 = await post(`${h.url}/v1/chat/completions`, `{"model":"assistant","messages":[{"role":"user","content":"x\\u0000"}]}`, h.auth);
    assert.is(v1.status, 400);
    assert.is(((await v1.json()) as any).error.param, 'messages.0.content');

    const bytes = Buffer.concat([Buffer.from('{"message":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]); // Latin-1, not UTF-8
    const latin1 = await fetch(`${h.url}/api/sessions/${id}/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...h.auth }, body: bytes });
    assert.is(latin1.status, 400);
    assert.match(((await latin1.json()) as any).error.message, 'not valid UTF-8');
    assert.equal(h.llm.requests, [], 'nothing reached the model');

    const exact = 'tab\there\u0001 \uFFFF 😀 \u{10FFFF} CRLF\r\n end';
    assert.is((await post(`${h.url}/api/sessions/${id}/messages`, { message: exact }, h.auth)).status, 200);
    assert.is(h.llm.requests[0]!.messages.at(-1)!.content, exact);
    const stored = (await (await fetch(`${h.url}/api/sessions/${id}`, { headers: h.auth })).json()) as any;
    assert.is(stored.messages[0].message.content, exact);
  });
});

test('tool output with NULs and lone surrogates is stored and served exactly (the bug: it read back cut at the NUL)', async () => {
  const raw = 'PNG\0\0\u0001IHDR\uD800 end';
  const bytes: Plugin = {
    name: 'bytes', version: '1.0.0', kernel: '^1',
    setup(k) { k.registerTool({ name: 'bytes', description: 'raw output', source: 'plugin', inputSchema: { type: 'object' }, async execute() { return raw; } }); },
  };
  await withSqlite([{ toolCalls: [{ id: 'b1', name: 'bytes', args: {} }] }, { text: 'done' }], async (h) => {
    const id = await newSession(h);
    assert.is((await post(`${h.url}/api/sessions/${id}/messages`, { message: 'read it' }, h.auth)).status, 200);
    assert.is(h.llm.requests[1]!.messages.at(-1)!.content, raw, 'the model got the whole output');
    const stored = (await (await fetch(`${h.url}/api/sessions/${id}`, { headers: h.auth })).json()) as any;
    assert.is(stored.messages[2].message.content, raw);
  }, true, [bytes]);
});

test('no malformed request to any endpoint gets a 5xx: every one is a 4xx with a code and a hint', async () => {
  await withSqlite([], async (h) => {
    const app = h.web.app;
    const id = await (async () => {
      const res = await app.request('/api/sessions', { method: 'POST', headers: { 'content-type': 'application/json', ...h.auth }, body: '{"agent":"assistant"}' });
      return ((await res.json()) as { id: string }).id;
    })();
    const long = 'x'.repeat(5000);
    const ids = ['unknown', '%00', '..%2F..%2Fetc%2Fpasswd', long, '%F0%9F%98%80', '%ZZ', ' ', '%E0%A4%A'];
    const agents = ['nobody', '%00', '..%2F..', '..', '.hidden', long, '%ZZ', 'a%2Fb'];
    const queries = ['runs=0', 'runs=x', 'q=', `q=${long}`, 'q=%00', 'limit=abc', 'limit=0', 'limit=-1', 'limit=1e99', 'limit=', 'limit=1&limit=2', 'cursor=abc', 'cursor=', 'cursor=%00',
      'agent=', 'agent=%00', 'agent=..%2F..', `agent=${long}`, 'force=maybe', '%ZZ=1'];
    const bodies: (string | Uint8Array)[] = ['', 'nope', 'null', '[]', '"text"', '42', '{}', '{"message":5}', '{"message":""}', '{"message":"hi","extra":1}',
      '{"agent":5}', '{"agent":"nobody"}', '{"agent":"../../x"}', '{"agent":"assistant","title":5}', '{"message":"\\u0000"}', '{"message":"\\udfff"}',
      '{"model":"nobody","messages":[{"role":"user","content":"hi"}]}', '{"model":"assistant","messages":[]}', '{"model":"assistant","messages":[{"role":"user","content":[{"type":"image_url"}]}]}',
      '{"model":"assistant","messages":[{"role":"assistant","content":"hi"}]}', '{"model":"assistant","user":"bad id!","messages":[{"role":"user","content":"hi"}]}',
      `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`, new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), 'x'.repeat(2_000_000)];

    const requests: { method: string; path: string; body?: string | Uint8Array; headers?: Record<string, string> }[] = [];
    for (const i of ids) {
      requests.push({ method: 'GET', path: `/api/sessions/${i}` }, { method: 'DELETE', path: `/api/sessions/${i}` });
      requests.push({ method: 'GET', path: `/api/sessions/${i}/trace` }, { method: 'POST', path: `/api/sessions/${i}/stop`, body: '{}' });
      for (const body of bodies) requests.push({ method: 'POST', path: `/api/sessions/${i}/messages`, body });
    }
    for (const a of agents) requests.push({ method: 'GET', path: `/api/agents/${a}/memory` }, { method: 'GET', path: `/api/tools?agent=${a}` });
    for (const q of queries) {
      for (const p of ['/api/sessions', `/api/sessions/${id}`, `/api/sessions/${id}/trace`, '/api/tools', '/api/info', '/v1/models']) requests.push({ method: 'GET', path: `${p}?${q}` });
      requests.push({ method: 'DELETE', path: `/api/sessions/unknown?${q}` });
    }
    for (const body of bodies) {
      for (const p of ['/api/sessions', `/api/sessions/${id}/messages`, '/v1/chat/completions']) {
        requests.push({ method: 'POST', path: p, body }, { method: 'POST', path: p, body, headers: { 'content-type': 'text/plain' } });
      }
    }
    for (const p of ['/nowhere', '/api', '/api/sessions/a/b/c', '/v1/chat/completions']) requests.push({ method: 'PUT', path: p }, { method: 'GET', path: p });
    for (const f of ['nope.js', '..%2F..%2Fpackage.json', '%00', long, '%ZZ', '.', '..']) requests.push({ method: 'GET', path: `/assets/${f}` }, { method: 'POST', path: `/assets/${f}`, body: '{}' });

    const failures: string[] = [];
    for (const r of requests) {
      const res = await app.request(r.path, { method: r.method, headers: { 'content-type': 'application/json', ...h.auth, ...r.headers }, body: r.body });
      const text = await res.text();
      const label = `${r.method} ${r.path.slice(0, 80)} ${typeof r.body === 'string' ? r.body.slice(0, 60) : r.body ? '<bytes>' : ''} → ${res.status}`;
      if (res.status >= 500) failures.push(`${label} ${text.slice(0, 200)}`);
      else if (res.status >= 400) {
        let error: any;
        try { error = JSON.parse(text).error; } catch { /* below */ }
        if (!error?.code || !error?.hint) failures.push(`${label}: no error code and hint: ${text.slice(0, 200)}`);
      }
    }
    assert.equal(failures, [], `${failures.length} of ${requests.length} requests failed:\n${failures.join('\n')}`);
    assert.equal(h.llm.requests, [], 'no malformed request reached the model');
  }, false);
});

test.run();
