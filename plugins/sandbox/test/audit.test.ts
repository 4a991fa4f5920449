// The audited row: with the sqlite and audit plugins on, a denial reaches tool_invocations
// with status "denied" and the reason. Uses the default config `oryx init` writes, so it also
// shows the database itself is out of the agent's reach.
import { writeFile } from 'node:fs/promises';
import { httpServer } from './fixture.ts';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import audit from '@oryxos/plugin-audit';
import sqlite from '@oryxos/plugin-sqlite';
import tools from '@oryxos/plugin-tools';
import sandbox from '../src/index.ts';

test('denials are written to tool_invocations with status denied and the reason', async () => {
  const llm = scripted([
    { toolCalls: [
      { id: 'a', name: 'read_file', args: { path: '.oryxos/oryx.db' } },
      { id: 'b', name: 'shell', args: { command: 'ls', args: [] } },
      { id: 'c', name: 'http_request', args: { url: 'http://127.0.0.1:9/' } },
      { id: 'd', name: 'read_file', args: { path: 'hello.txt' } },
    ] },
    { text: 'done' },
  ]);
  const t = await testKernel({
    plugins: [
      llm, sqlite(), audit(),
      // what `oryx init` writes
      sandbox({ files: { read: ['.'], write: ['.'], deny: ['.oryxos/oryx.db', '.oryxos/oryx.db-wal', '.oryxos/oryx.db-shm'] } }),
      tools(),
    ],
  });
  try {
    await writeFile(path.join(t.dir, 'hello.txt'), 'hi');
    const run = await t.service.process({ agent: 'assistant', message: 'go' });
    const rows = await t.kernel.service('database').query<{ tool_call_id: string; tool: string; status: string; denied_reason: string | null; source: string }>(
      'SELECT tool_call_id, tool, status, denied_reason, source FROM tool_invocations WHERE session_id = ? ORDER BY id', [run.sessionId],
    );
    assert.equal(rows.map((r) => [r.tool_call_id, r.tool, r.status, r.source]), [
      ['a', 'read_file', 'denied', 'builtin'], ['b', 'shell', 'denied', 'builtin'], ['c', 'http_request', 'denied', 'builtin'], ['d', 'read_file', 'ok', 'builtin'],
    ]);
    assert.match(rows[0]!.denied_reason!, /\.oryxos\/oryx\.db is on the sandbox deny list/);
    assert.match(rows[1]!.denied_reason!, /exec allow-list is empty/);
    assert.match(rows[2]!.denied_reason!, /http allow-list is empty/);
    assert.is(rows[3]!.denied_reason, null);
  } finally {
    await t.close();
  }
});

test('a denied redirect hop leaves a sandbox_events row with the hop, next to the denied tool call', async () => {
  const evil = await httpServer((_req, res) => { res.end('evil'); });
  const allowed = await httpServer((_req, res) => { res.writeHead(302, { location: `http://127.0.0.1:${evil.port}/steal` }); res.end(); });
  const llm = scripted([{ toolCalls: [{ id: 'r1', name: 'http_request', args: { url: `${allowed.url}/start` } }] }, { text: 'done' }]);
  const t = await testKernel({ plugins: [llm, sqlite(), audit(), sandbox({ http: { allow: [allowed.url] } }), tools()] });
  try {
    const run = await t.service.process({ agent: 'assistant', message: 'go' });
    const db = t.kernel.service('database');
    const [call] = await db.query<{ status: string; denied_reason: string }>('SELECT status, denied_reason FROM tool_invocations WHERE tool_call_id = ?', ['r1']);
    assert.is(call!.status, 'denied');
    const events = await db.query<{ decision: string; kind: string; target: string; origin: string; session_id: string; tool_call_id: string; reason: string }>(
      'SELECT decision, kind, target, origin, session_id, tool_call_id, reason FROM sandbox_events ORDER BY id');
    assert.equal(events.map((e) => [e.decision, e.kind, e.target, e.origin, e.session_id, e.tool_call_id]), [
      ['deny', 'http', `GET http://127.0.0.1:${evil.port}/steal`, 'tool http_request', run.sessionId, 'r1'],
    ]);
    assert.is(events[0]!.reason, call!.denied_reason);
    assert.equal(evil.hits, []);
  } finally {
    await t.close();
    await Promise.all([evil.close(), allowed.close()]);
  }
});

test.run();
