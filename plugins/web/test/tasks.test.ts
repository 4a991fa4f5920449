// /api/tasks, served when the scheduler plugin provides its service.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import scheduler from '@oryxos/plugin-scheduler';
import sqlite from '@oryxos/plugin-sqlite';
import { startWeb, type Harness } from './helpers.ts';

const TASK_ROUTES = ['GET /api/tasks', 'POST /api/tasks', 'DELETE /api/tasks/{name}', 'GET /api/tasks/{name}/executions'];

async function call(h: Harness, method: string, path: string, body?: unknown) {
  const res = await fetch(`${h.url}${path}`, { method, headers: { ...h.auth, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

test('tasks over REST: list, add (201 + Location), refuse bad input with the scheduler\'s code, executions, remove; all in the OpenAPI document', async () => {
  const h = await startWeb({
    script: [{ text: 'the report' }],
    agents: { assistant: { tools: [] } },
    plugins: [sqlite(), scheduler({ tasks: [{ name: 'nightly', agent: 'assistant', message: 'report', cron: '0 3 * * *' }] })],
  });
  try {
    const listed = await call(h, 'GET', '/api/tasks');
    assert.is(listed.status, 200);
    assert.equal(listed.json.items.map((t: { name: string; source: string }) => [t.name, t.source]), [['nightly', 'config']]);

    const added = await call(h, 'POST', '/api/tasks', { name: 'hourly', agent: 'assistant', message: 'check', every: '1h' });
    assert.is(added.status, 201);
    assert.is(added.headers.get('location'), '/api/tasks/hourly');
    assert.equal([added.json.name, added.json.schedule, added.json.source], ['hourly', 'every 1h', 'runtime']);
    assert.is(Date.parse(added.json.next) % 3_600_000, 0, 'on the hour');

    for (const [body, status, code] of [
      [{ name: 'x', agent: 'assistant', message: 'm', cron: '99 * * * *' }, 400, 'ORYX_E_SCHEDULER_BAD_CRON'],
      [{ name: 'x', agent: 'ghost', message: 'm', every: '1h' }, 400, 'ORYX_E_SCHEDULER_UNKNOWN_AGENT'],
      [{ name: 'x', agent: 'assistant', message: 'm', at: '2001-01-01T00:00:00Z' }, 400, 'ORYX_E_SCHEDULER_AT_PAST'],
      [{ name: 'x', agent: 'assistant', message: 'm', every: '1h', notify: 'ops' }, 400, 'ORYX_E_SCHEDULER_UNKNOWN_CHANNEL'],
      [{ name: 'hourly', agent: 'assistant', message: 'm', every: '1h' }, 409, 'ORYX_E_SCHEDULER_DUPLICATE'],
      [{ name: 'x', agent: 'assistant', message: 'm', every: '1h', colour: 'red' }, 400, 'ORYX_E_WEB_BAD_REQUEST'],
    ] as const) {
      const r = await call(h, 'POST', '/api/tasks', body);
      assert.is(r.status, status, JSON.stringify(body));
      assert.is(r.json.error.code, code);
      assert.ok(r.json.error.hint);
    }

    await h.kernel.service('scheduler').run('hourly');
    const runs = await call(h, 'GET', '/api/tasks/hourly/executions?limit=5');
    assert.is(runs.status, 200);
    assert.equal(Object.keys(runs.json), ['task', 'items']);
    assert.equal(runs.json.items.map((e: { status: string; answer: string; firedBy: string }) => [e.status, e.answer, e.firedBy]), [['ok', 'the report', 'manual']]);
    assert.is((await call(h, 'GET', '/api/tasks/ghost/executions')).json.error.code, 'ORYX_E_SCHEDULER_NOT_FOUND');
    assert.is((await call(h, 'GET', '/api/tasks/hourly/executions?limit=0')).status, 400);

    assert.equal([(await call(h, 'DELETE', '/api/tasks/nightly')).status, (await call(h, 'DELETE', '/api/tasks/nope')).status], [409, 404]);
    assert.is((await call(h, 'DELETE', '/api/tasks/hourly')).status, 204);
    assert.equal((await call(h, 'GET', '/api/tasks')).json.items.map((t: { name: string }) => t.name), ['nightly']);
    assert.is((await call(h, 'GET', '/api/tasks/hourly/executions')).json.items.length, 1, 'executions outlive their task');

    const doc = (await call(h, 'GET', '/openapi.json')).json;
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${path}`));
    for (const route of TASK_ROUTES) assert.ok(documented.includes(route), route);
    assert.ok(doc.paths['/api/tasks'].post.requestBody, 'the body schema is documented');
    assert.is((h.kernel.service('scheduler') as unknown as { running: boolean }).running, false, 'serving the API does not start the scheduler: the host starts the doors');
  } finally {
    await h.close();
  }
});

test('without the scheduler plugin there is no /api/tasks', async () => {
  const h = await startWeb({ plugins: [sqlite()] });
  try {
    assert.is((await call(h, 'GET', '/api/tasks')).status, 404);
    const doc = (await call(h, 'GET', '/openapi.json')).json;
    assert.not.ok('/api/tasks' in doc.paths);
  } finally {
    await h.close();
  }
});

test.run();
