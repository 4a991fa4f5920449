// Deleting a session that another process is running: refused naming that process, or with
// force that process aborts its run (it sees the request when it renews its lease) and the
// delete goes through once the run has ended. The CLI part runs the built `oryx` binary.
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, writeAgents } from '@oryxos/kernel/testing';
import { Worker } from './child.ts';
import { openStore, rejection, tempDir } from './helpers.ts';

async function heldSession(dir: string) {
  const file = path.join(dir, '.oryxos', 'oryx.db');
  await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['*'] } });
  const s = await openStore(file, 'libsql');
  const { id } = await s.store.create({ agent: 'assistant' });
  await s.close();
  const worker = new Worker(['hold-run', dir, id]);
  await worker.waitFor('RUNNING');
  return { file, id, worker };
}

test('store.delete: refused while another process runs the session; force stops that run first', async () => {
  const { dir, cleanup } = await tempDir();
  const { file, id, worker } = await heldSession(dir);
  const s = await openStore(file, 'client');
  try {
    const e = await rejection(() => s.store.delete(id));
    assert.is(e.code, 'ORYX_E_SQLITE_SESSION_BUSY');
    assert.match(e.message, `process ${worker.child.pid}`);
    assert.match(e.hint, '--force');
    assert.ok(await s.store.get(id), 'nothing was deleted');

    assert.is(await s.store.delete(id, { force: true }), true);
    const result = JSON.parse((await worker.waitFor('RESULT ')).slice(7));
    assert.is(result.stopReason, 'aborted', 'the other process aborted its run');
    assert.is(await s.store.get(id), undefined);
    assert.equal(await s.db.query('SELECT * FROM messages WHERE session_id = ?', [id]), [], 'its messages went with it');
    assert.equal(await s.db.query('SELECT * FROM session_leases'), []);
  } finally {
    await s.close();
    await worker.kill();
    await cleanup();
  }
});

test('oryx sessions delete: names the process that runs the session; --force deletes after stopping it', async () => {
  const { dir, cleanup } = await tempDir();
  const { id, worker } = await heldSession(dir);
  try {
    const refused = await runOryx(['sessions', 'delete', id], { cwd: dir });
    assert.is(refused.code, 1);
    assert.match(refused.stderr, 'ORYX_E_SQLITE_SESSION_BUSY');
    assert.match(refused.stderr, `process ${worker.child.pid}`);
    assert.match(refused.stderr, `oryx sessions delete ${id} --force`);

    const forced = await runOryx(['sessions', 'delete', id, '--force', '--json'], { cwd: dir });
    assert.is(forced.code, 0, forced.stderr);
    assert.is(JSON.parse(forced.stdout).deleted, true);
    assert.match(await worker.waitFor('RESULT '), '"aborted"');
    const gone = await runOryx(['sessions', 'show', id, '--json'], { cwd: dir });
    assert.is(JSON.parse(gone.stdout).error.code, 'ORYX_E_SESSION_NOT_FOUND');
  } finally {
    await worker.kill();
    await cleanup();
  }
});

test.run();
