// /api/approvals on a real SQLite file over loopback HTTP: listing, deciding as the token's
// identity, and the codes of a decision that comes too late or second.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sqlite from '@oryxos/plugin-sqlite';
import { post, startWeb, type Harness } from './helpers.ts';

async function pending(h: Harness, count: number): Promise<{ sessionId: string; ids: string[] }> {
  const { id: sessionId } = await h.kernel.service('sessions').create({ agent: 'assistant' });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    ids.push((await h.kernel.service('approvals').request({
      runId: 'run-1', sessionId, agent: 'assistant', tool: 'write_file', toolCallId: `call-${i}`, args: { path: `src/${i}.ts`, content: 'x' },
      asks: [{ action: { kind: 'file', op: 'write', path: `src/${i}.ts` }, reason: `write of "src/${i}.ts" needs approval` }],
    })).id);
  }
  return { sessionId, ids };
}

test('GET lists pending approvals; POST decides as the token\'s identity; a second decision is 409 naming the first', async () => {
  const h = await startWeb({ plugins: [sqlite()] });
  try {
    const { sessionId, ids } = await pending(h, 3);
    const list = async (query = '') => (await (await fetch(`${h.url}/api/approvals${query}`, { headers: h.auth })).json()) as any;
    assert.equal((await list()).items.map((a: { id: string }) => a.id).sort(), [...ids].sort());
    assert.is((await list()).items[0].asks[0].action.kind, 'file');

    const approved = await post(`${h.url}/api/approvals/${ids[0]}`, { decision: 'approve' }, h.auth);
    assert.is(approved.status, 200);
    assert.equal(((await approved.json()) as any).decidedBy, 'operator');
    const denied = await post(`${h.url}/api/approvals/${ids[1]}`, { decision: 'deny', reason: 'not in src' }, h.auth);
    assert.equal(((await denied.json()) as any).reason, 'not in src');

    const again = await post(`${h.url}/api/approvals/${ids[0]}`, { decision: 'deny' }, h.auth);
    assert.is(again.status, 409);
    const body = (await again.json()) as any;
    assert.is(body.error.code, 'ORYX_E_APPROVAL_DECIDED');
    assert.match(body.error.message, /already approved \(by operator/);

    // Two deciders at once: exactly one wins.
    const race = await Promise.all([
      post(`${h.url}/api/approvals/${ids[2]}`, { decision: 'approve' }, h.auth),
      post(`${h.url}/api/approvals/${ids[2]}`, { decision: 'deny' }, h.auth),
    ]);
    assert.equal(race.map((r) => r.status).sort(), [200, 409]);

    assert.equal((await list()).items, []);
    const decided = (await list(`?status=all&session=${sessionId}`)).items.map((a: { id: string; status: string }) => [a.id, a.status]);
    assert.equal(decided.length, 3);
    assert.ok(decided.every(([, status]: string[]) => status !== 'pending'));
    const one = await fetch(`${h.url}/api/approvals/${ids[1]}`, { headers: h.auth });
    assert.equal(((await one.json()) as any).status, 'denied');
  } finally {
    await h.close();
  }
});

test('bad requests: an unknown id, a bad decision, no token, no approvals service', async () => {
  const h = await startWeb({ plugins: [sqlite()] });
  try {
    const unknown = await post(`${h.url}/api/approvals/00000000-0000-0000-0000-000000000000`, { decision: 'approve' }, h.auth);
    assert.is(unknown.status, 404);
    assert.is(((await unknown.json()) as any).error.code, 'ORYX_E_APPROVAL_NOT_FOUND');
    const { ids } = await pending(h, 1);
    const bad = await post(`${h.url}/api/approvals/${ids[0]}`, { decision: 'maybe' }, h.auth);
    assert.is(bad.status, 400);
    assert.match(((await bad.json()) as any).error.message, /decision/);
    assert.is((await post(`${h.url}/api/approvals/${ids[0]}`, { decision: 'approve' })).status, 401);
    assert.is((await h.kernel.service('approvals').get(ids[0]!))!.status, 'pending', 'nothing was decided by the refused requests');
  } finally {
    await h.close();
  }
  const bare = await startWeb();
  try {
    const res = await fetch(`${bare.url}/api/approvals`, { headers: bare.auth });
    assert.is(res.status, 404);
    assert.is(((await res.json()) as any).error.code, 'ORYX_E_WEB_NO_APPROVALS');
  } finally {
    await bare.close();
  }
});

test.run();
