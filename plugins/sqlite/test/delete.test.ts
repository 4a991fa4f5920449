// `oryx sessions delete` on a session another process is running: refused naming that process,
// or with --force that process aborts its run first (the store's side of it is in
// store-contract.ts, for every engine). Runs the built `oryx` binary.
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOryx, writeAgents } from '@oryxos/kernel/testing';
import { Worker } from '../../../kits/sql-store/test/child.ts';
import { SQLITE_WORKER_ENV } from './engine.ts';
import { openStore, tempDir } from './helpers.ts';

async function heldSession(dir: string) {
  const file = path.join(dir, '.oryxos', 'oryx.db');
  await writeAgents(path.join(dir, '.oryxos'), { assistant: { tools: ['*'] } });
  const s = await openStore(file, 'libsql');
  const { id } = await s.store.create({ agent: 'assistant' });
  await s.close();
  const worker = new Worker(['hold-run', dir, id], SQLITE_WORKER_ENV);
  await worker.waitFor('RUNNING');
  return { file, id, worker };
}

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
