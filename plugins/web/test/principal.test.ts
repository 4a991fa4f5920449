// Who a run acts for: the request's principal reaches the kernel as run.user, and the
// memory endpoint shows a user's memory only to those who may see it.
import { Hono } from 'hono';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { STAGE, type Plugin } from '@oryxos/kernel';
import type { LongTermMemoryStore } from '@oryxos/contracts';
import { asOryxError, errorBody, statusOf } from '../src/errors.ts';
import { OPERATOR } from '../src/auth.ts';
import type { WebEnv } from '../src/request-log.ts';
import { identityOf, memoryUserOf, principalOf, type Identity } from '../src/principal.ts';
import { memoryService, newSession, post, startWeb, type Harness } from './helpers.ts';

/** Records the user of every run, as the kernel hands it to hooks. */
function userRecorder(users: (string | undefined)[]): Plugin {
  return {
    name: 'user-recorder', version: '1.0.0', kernel: '^1',
    setup(k) { k.hooks.runStart.tapPromise({ stage: STAGE.OBSERVE }, async (run) => { users.push(run.user); }); },
  };
}

async function withWeb(options: NonNullable<Parameters<typeof startWeb>[0]>, fn: (h: Harness, users: (string | undefined)[]) => Promise<void>): Promise<void> {
  const users: (string | undefined)[] = [];
  const h = await startWeb({ ...options, plugins: [...(options.plugins ?? []), userRecorder(users)] });
  try { await fn(h, users); } finally { await h.close(); }
}

const TOKEN = 'a-token-of-sixteen-chars-or-more';
const auth = { authorization: `Bearer ${TOKEN}` };

test('REST runs act for x-oryx-user, else the operator; a bad name is a 400 before anything runs', () => withWeb({
  script: [{ text: '1' }, { text: '2' }], web: { token: TOKEN },
}, async (h, users) => {
  const id = await newSession(h, 'assistant', auth);
  assert.is((await post(`${h.url}/api/sessions/${id}/messages`, { message: 'hi' }, auth)).status, 200);
  assert.is((await post(`${h.url}/api/sessions/${id}/messages`, { message: 'hi' }, { ...auth, 'x-oryx-user': 'ana@example.com' })).status, 200);
  const bad = await post(`${h.url}/api/sessions/${id}/messages`, { message: 'hi' }, { ...auth, 'x-oryx-user': 'ana/../bob' });
  assert.is(bad.status, 400);
  assert.is(((await bad.json()) as any).error.code, 'ORYX_E_WEB_BAD_REQUEST');
  assert.equal(users, ['operator', 'ana@example.com']);
}));

test('/v1 runs act for the user field or x-oryx-user (which must agree), else the operator', () => withWeb({
  script: [{ text: '1' }, { text: '2' }, { text: '3' }],
}, async (h, users) => {
  const chat = (body: object, headers: Record<string, string> = {}) =>
    post(`${h.url}/v1/chat/completions`, { model: 'assistant', messages: [{ role: 'user', content: 'hi' }], ...body }, { ...h.auth, ...headers });
  assert.is((await chat({ user: 'bob' })).status, 200);
  assert.is((await chat({}, { 'x-oryx-user': 'carol' })).status, 200);
  assert.is((await chat({})).status, 200);
  const clash = await chat({ user: 'bob' }, { 'x-oryx-user': 'carol' });
  assert.is(clash.status, 400);
  assert.match(((await clash.json()) as any).error.message, 'name different users');
  assert.equal(users, ['bob', 'carol', 'operator']);
}));

/** A memory service that keeps one memory per user, like the memory plugin's. */
function scopedMemory(): Plugin {
  const store = {
    async read(agent: string, target?: { scope: 'user'; user: string }) {
      if (!target) return { path: `/m/${agent}/MEMORY.md`, scope: 'agent', core: [{ date: '2026-01-01', text: 'AGENT-FACT' }], archive: [] };
      return { path: `/m/${agent}/users/${target.user}/MEMORY.md`, scope: 'user', user: target.user, core: [{ date: '2026-01-02', text: `fact of ${target.user}` }], archive: [] };
    },
    async save(_a: string, text: string) { return { date: '2026-01-01', text }; },
    async recall() { return []; },
  } as LongTermMemoryStore;
  return { name: 'memory-scoped', version: '1.0.0', kernel: '^1', provides: ['memory'], setup(k) { k.provide('memory', store); } };
}

test("GET /api/agents/:name/memory?user=U: that user's memory; the agent's without it; a store without users is refused", async () => {
  await withWeb({ plugins: [scopedMemory()] }, async (h) => {
    const ana = await fetch(`${h.url}/api/agents/assistant/memory?user=ana`, { headers: h.auth });
    assert.is(ana.status, 200);
    assert.equal(await ana.json(), {
      agent: 'assistant', path: '/m/assistant/users/ana/MEMORY.md', scope: 'user', user: 'ana', core: [{ date: '2026-01-02', text: 'fact of ana' }], archive: [],
    });
    assert.is(((await (await fetch(`${h.url}/api/agents/assistant/memory`, { headers: h.auth })).json()) as any).scope, 'agent');
    const bad = await fetch(`${h.url}/api/agents/assistant/memory?user=${encodeURIComponent('a b')}`, { headers: h.auth });
    assert.is(bad.status, 400);
  });
  await withWeb({ plugins: [memoryService({ assistant: { core: [{ date: '2026-01-01', text: 'AGENT-ONLY' }], archive: [] } })] }, async (h) => {
    const res = await fetch(`${h.url}/api/agents/assistant/memory?user=ana`, { headers: h.auth });
    assert.is(res.status, 404, 'never the agent memory in place of a user memory');
    const body = (await res.json()) as any;
    assert.is(body.error.code, 'ORYX_E_WEB_NO_MEMORY');
    assert.not.match(JSON.stringify(body), 'AGENT-ONLY');
  });
});

/** A Hono app whose auth step sets the identity, as the token middleware will. */
function appAs(identity: Identity | undefined) {
  const app = new Hono<WebEnv>();
  app.use('*', async (c, next) => { if (identity) (c as any).set('identity', identity); await next(); });
  app.post('/run', async (c) => c.json({ user: principalOf(c, ((await c.req.json()) as { user?: string }).user) }));
  app.get('/memory', (c) => c.json({ user: memoryUserOf(c, c.req.query('user')!) }));
  app.get('/who', (c) => c.json(identityOf(c)));
  app.onError((error, c) => { const e = asOryxError(error); return c.json(errorBody(e), statusOf(e) as 403); });
  return app;
}

test('an identity that may not name users acts for itself only: x-oryx-user for another is 403, the user field is ignored', async () => {
  const app = appAs({ name: 'ana', namesUsers: false });
  const run = (body: object, headers: Record<string, string> = {}) =>
    app.request('/run', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
  assert.equal(await (await run({ user: 'bob' })).json(), { user: 'ana' });
  assert.equal(await (await run({}, { 'x-oryx-user': 'ana' })).json(), { user: 'ana' });
  const other = await run({}, { 'x-oryx-user': 'bob' });
  assert.is(other.status, 403);
  assert.is(((await other.json()) as any).error.code, 'ORYX_E_WEB_USER_FORBIDDEN');
  assert.is((await app.request('/memory?user=bob')).status, 403);
  assert.equal(await (await app.request('/memory?user=ana')).json(), { user: 'ana' });

  const trusted = appAs({ name: 'backend', namesUsers: true });
  assert.equal(await (await trusted.request('/memory?user=bob')).json(), { user: 'bob' });
  assert.equal(await (await appAs(undefined).request('/who')).json(), { ...OPERATOR });
});

test.run();
