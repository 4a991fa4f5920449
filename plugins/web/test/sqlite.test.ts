// The web channel on the durable store: sessions created and run over HTTP survive a restart.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import sqlite from '@oryxos/plugin-sqlite';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { post, startWeb } from './helpers.ts';

test('sessions and runs over HTTP are stored in sqlite and readable after a restart', async () => {
  const dbDir = await mkdtemp(path.join(tmpdir(), 'oryx-web-db-'));
  const url = `file:${path.join(dbDir, 'oryx.db')}`;
  try {
    const step = (text: string) => ({ text, usage: { inputTokens: 1, outputTokens: 1 } });
    const first = await startWeb({ plugins: [sqlite({ url })], script: [step('one'), step('two')] });
    let id: string;
    try {
      id = ((await (await post(`${first.url}/api/sessions`, { agent: 'assistant' }, first.auth)).json()) as any).id;
      // Two at once on the sqlite store (its lock() is taken too): both stored, in order.
      const [a, b] = await Promise.all([
        post(`${first.url}/api/sessions/${id}/messages`, { message: 'A' }, first.auth),
        post(`${first.url}/api/sessions/${id}/messages`, { message: 'B' }, first.auth),
      ]);
      assert.is(a.status, 200);
      assert.is(b.status, 200);
    } finally {
      await first.close();
    }
    const second = await startWeb({ plugins: [sqlite({ url })] });
    try {
      const res = await fetch(`${second.url}/api/sessions/${id}`, { headers: second.auth });
      assert.is(res.status, 200);
      const s = (await res.json()) as any;
      const roles = s.messages.map((m: any) => m.message.role);
      assert.equal(roles, ['user', 'assistant', 'user', 'assistant']);
      assert.equal(s.messages.filter((m: any) => m.message.role === 'assistant').map((m: any) => m.message.content), ['one', 'two']);
      const list = (await (await fetch(`${second.url}/api/sessions?agent=assistant`, { headers: second.auth })).json()) as any;
      assert.equal(list.items.map((x: any) => x.id), [id]);
      assert.is((await fetch(`${second.url}/api/sessions/${id}`, { headers: second.auth, method: 'DELETE' })).status, 204);
      assert.is((await fetch(`${second.url}/api/sessions/${id}`, { headers: second.auth })).status, 404);
    } finally {
      await second.close();
    }
  } finally {
    await rm(dbDir, { recursive: true, force: true });
  }
});

test.run();
