// The background flush of the WAL file: it opens only that file, once, flushes every N commits
// with at most one flush running, and lets go of the file when closed (a descriptor left open
// would keep a deleted WAL on disk). Open descriptors are read from /proc/self/fd.
import { readdirSync, readlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from './helpers.ts';
import { WalSync } from '../src/wal-sync.ts';

const openOn = (file: string) => readdirSync('/proc/self/fd').filter((fd) => {
  try { return readlinkSync(`/proc/self/fd/${fd}`) === file; } catch { return false; }
}).length;

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await sleep(5);
}

test('opens the WAL file at the Nth commit, keeps one descriptor for every later flush, and closes it', async () => {
  const { dir, cleanup } = await tempDir();
  const file = path.join(dir, 'x.db-wal');
  try {
    await writeFile(file, 'frames');
    const wal = new WalSync(file, 3);
    wal.committed();
    wal.committed();
    await sleep(20);
    assert.is(openOn(file), 0, 'not before the third commit');
    wal.committed();
    await until(() => openOn(file) === 1);
    assert.is(openOn(file), 1);
    for (let i = 0; i < 9; i++) wal.committed();
    await sleep(20);
    assert.is(openOn(file), 1, 'one descriptor, reused');
    wal.close();
    await until(() => openOn(file) === 0);
    assert.is(openOn(file), 0, 'closed with the connection');
    for (let i = 0; i < 6; i++) wal.committed();
    await sleep(20);
    assert.is(openOn(file), 0, 'nothing opens after close');
  } finally {
    await cleanup();
  }
});

test('no WAL file (yet) is not an error; closing while the file is being opened still lets go of it', async () => {
  const { dir, cleanup } = await tempDir();
  const file = path.join(dir, 'x.db-wal');
  try {
    const missing = new WalSync(file, 1);
    missing.committed();
    await sleep(20);
    assert.is(openOn(file), 0);
    missing.close();

    await writeFile(file, 'frames');
    const racing = new WalSync(file, 1);
    racing.committed();
    racing.close();
    await sleep(50);
    assert.is(openOn(file), 0);
  } finally {
    await cleanup();
  }
});

test.run();
