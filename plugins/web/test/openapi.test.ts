import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWeb } from './helpers.ts';

const CORE = [
  'GET /health', 'GET /api/info', 'GET /api/agents', 'GET /api/agents/{name}/memory', 'GET /api/tools',
  'POST /api/sessions', 'GET /api/sessions', 'GET /api/sessions/{id}', 'DELETE /api/sessions/{id}', 'POST /api/sessions/{id}/messages',
  'GET /api/sessions/{id}/trace', 'POST /api/sessions/{id}/stop', 'GET /api/approvals', 'GET /api/approvals/{id}', 'POST /api/approvals/{id}',
  'GET /', 'GET /assets/{file}',
  'GET /v1/models', 'POST /v1/chat/completions', 'GET /openapi.json', 'GET /docs',
];

test('GET /openapi.json describes every route the app serves, and only those', async () => {
  const h = await startWeb();
  try {
    const doc = (await (await fetch(`${h.url}/openapi.json`, { headers: h.auth })).json()) as any;
    assert.is(doc.openapi, '3.1.0');
    const documented = Object.entries(doc.paths).flatMap(([path, ops]: [string, any]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    assert.equal(documented.sort(), [...CORE].sort());
    // What Hono actually routes (middleware excluded) is the same set.
    const served = h.web.app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`);
    assert.equal([...new Set(served)].sort(), [...CORE].sort());
    for (const [path, ops] of Object.entries(doc.paths) as [string, any][]) {
      for (const [method, op] of Object.entries(ops) as [string, any][]) {
        assert.type(op.summary, 'string', `${method} ${path}`);
        assert.ok(Object.keys(op.responses).length > 0, `${method} ${path} has responses`);
        for (const name of path.match(/\{(\w+)\}/g) ?? []) {
          assert.ok(op.parameters.some((p: any) => p.in === 'path' && `{${p.name}}` === name), `${method} ${path} documents ${name}`);
        }
      }
    }
    assert.equal(doc.paths['/health'].get.security, []);
    assert.equal(doc.paths['/'].get.security, [], 'the console page needs no token');
    assert.equal(doc.paths['/assets/{file}'].get.security, []);
    assert.equal(doc.security, [{ bearerAuth: [] }], 'the default requires the (generated) token');
  } finally {
    await h.close();
  }
});

test('the document carries the schemas that validate: required fields, patterns, limits, query parameters', async () => {
  const h = await startWeb();
  try {
    const doc = h.web.openapi();
    const create = doc.paths['/api/sessions'].post.requestBody.content['application/json'].schema;
    assert.is(create.required, undefined, 'agent is optional: the default agent');
    assert.is(create.additionalProperties, false);
    assert.equal(create.properties.agent.pattern, '^[a-zA-Z0-9][a-zA-Z0-9_.-]*$');
    const res = await fetch(`${h.url}/api/sessions`, { method: 'POST', headers: { ...h.auth, 'content-type': 'application/json' }, body: JSON.stringify({ agent: '../x' }) });
    assert.is(res.status, 400);
    assert.match(((await res.json()) as any).error.message, 'agent');

    const message = doc.paths['/api/sessions/{id}/messages'].post.requestBody.content['application/json'].schema;
    assert.equal(message.required, ['message']);
    assert.is(message.properties.message.minLength, 1);

    const list = doc.paths['/api/sessions'].get.parameters.map((p: any) => [p.name, p.in]);
    assert.equal(list.sort(), [['agent', 'query'], ['cursor', 'query'], ['limit', 'query'], ['q', 'query']]);
    const trace = doc.paths['/api/sessions/{id}/trace'].get.parameters.map((p: any) => [p.name, p.in]);
    assert.equal(trace.sort(), [['id', 'path'], ['runs', 'query']]);
    assert.ok(doc.paths['/api/sessions/{id}/trace'].get.responses['200'].content['application/json'].schema.properties.runs, 'the timeline\'s shape is documented');
    const chat = doc.paths['/v1/chat/completions'].post.requestBody.content['application/json'].schema;
    assert.equal(chat.required.sort(), ['messages', 'model']);
    assert.is(chat.properties.messages.minItems, 1);
    assert.ok(doc.paths['/v1/chat/completions'].post.parameters.some((p: any) => p.name === 'x-session-id' && p.in === 'header'));
    const notFound = doc.paths['/api/sessions/{id}'].get.responses['404'];
    assert.equal(notFound.content['application/json'].schema, { $ref: '#/components/schemas/Error' });
    assert.equal(doc.components.schemas.Error.properties.error.required.sort(), ['code', 'hint', 'message']);
  } finally {
    await h.close();
  }
});

test('with a token the document declares bearer auth; with auth: none it does not', async () => {
  const h = await startWeb({ web: { token: 'a-long-random-secret-for-tests' }, listen: false });
  try {
    const doc = h.web.openapi();
    assert.equal(doc.security, [{ bearerAuth: [] }]);
    assert.equal(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer' });
  } finally {
    await h.close();
  }
  const open = await startWeb({ web: { auth: 'none' }, listen: false });
  try {
    assert.is(open.web.openapi().security, undefined);
  } finally {
    await open.close();
  }
});

test('GET /docs is a self-contained page listing every endpoint', async () => {
  const h = await startWeb();
  try {
    const res = await fetch(`${h.url}/docs`, { headers: h.auth });
    assert.is(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', 'text/html');
    const html = await res.text();
    for (const entry of CORE) {
      const [method, path] = entry.split(' ');
      assert.ok(html.includes(`>${method}</span> <code>${path}</code>`), `${entry} on the page`);
    }
    assert.not.match(html, /<script|<link|src=|https?:\/\//i, 'no scripts, no external resources');
    assert.match(html, 'Runs on one session are served one after the other');
  } finally {
    await h.close();
  }
});

test.run();
