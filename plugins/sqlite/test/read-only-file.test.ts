// A database file that cannot be written: reading it (as root, who writes anyway, and as
// another user) creates no -wal or -shm file beside it, a write fails with its code naming the
// statement; and a full disk (a real one: a 2 MB tmpfs in a private mount namespace) names the
// write that failed, not the lease release. Needs root (CI runs as root), setpriv and unshare.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import sqlite from '../src/index.ts';
import { rejection, tempDir } from './helpers.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const BIN = path.join(ROOT, 'bin', 'run.js');
const WRITER = path.join(import.meta.dirname, 'fixtures', 'writer.mts');
const asRoot = () => { if (process.getuid?.() !== 0) throw new Error('this test needs root (as CI runs it): it reads as another user and mounts a tmpfs'); };

/** `oryx args` run as user 65534 (nobody), in `cwd`. */
function asNobody(args: string[], cwd: string) {
  return spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, BIN, ...args], {
    cwd, encoding: 'utf8', env: { PATH: process.env.PATH!, HOME: '/nonexistent', NO_COLOR: '1', OCLIF_SKIP_UPDATE_CHECK: '1' },
  });
}

test('a chmod 444 database is read without creating -wal or -shm files, by root and by another user; a write fails naming it', async () => {
  asRoot();
  const { dir, cleanup } = await tempDir();
  const folder = path.join(dir, '.oryxos');
  const file = path.join(folder, 'oryx.db');
  try {
    await writeFile(path.join(dir, 'oryx.config.ts'), "import { defineConfig } from '@oryxos/kernel';\nimport sqlite from '@oryxos/plugin-sqlite';\nexport default defineConfig({ plugins: [sqlite()] });\n");
    let k = await testKernel({ plugins: [scripted([{ text: 'stored' }]), sqlite()], dir });
    const { sessionId } = await k.service.process({ agent: 'assistant', message: 'keep me' });
    await k.close({ keep: true });
    // Closed, the main file holds it all (the close checkpointed the WAL): a copy of it alone, made read-only.
    await rm(`${file}-wal`, { force: true });
    await rm(`${file}-shm`, { force: true });
    await chmod(file, 0o444);
    await chmod(dir, 0o755);
    await chmod(folder, 0o777);

    const byNobody = asNobody(['sessions', '--json'], dir);
    assert.is(byNobody.status, 0, byNobody.stderr + byNobody.stdout);
    assert.equal(JSON.parse(byNobody.stdout).items.map((s: { id: string }) => s.id), [sessionId]);
    const byRoot = spawnSync(process.execPath, [BIN, 'sessions', 'show', sessionId, '--json'], { cwd: dir, encoding: 'utf8' });
    assert.is(byRoot.status, 0, byRoot.stderr);
    assert.is(JSON.parse(byRoot.stdout).messages[1].message.content, 'stored');
    assert.not.ok(existsSync(`${file}-wal`), 'no -wal file');
    assert.not.ok(existsSync(`${file}-shm`), 'no -shm file');

    k = await testKernel({ plugins: [scripted([{ text: 'never stored' }]), sqlite()], dir });
    try {
      // The run's first write is taking the session's lease: the error names it.
      const e = await rejection(() => k.service.process({ agent: 'assistant', session: sessionId, message: 'write me' }));
      assert.is(e.code, 'ORYX_E_SQLITE_READONLY');
      assert.match(e.message, 'attempt to write a readonly database (SQLITE_READONLY) in: INSERT INTO session_leases');
      assert.match(e.hint, 'writable');
    } finally {
      await k.close({ keep: true });
    }
    assert.not.ok(existsSync(`${file}-wal`) || existsSync(`${file}-shm`), 'still none after a refused write');
  } finally {
    await chmod(file, 0o644).catch(() => {});
    await cleanup();
  }
});

test('a full disk: the run fails with ORYX_E_SQLITE_FULL naming the write it was committing, and nothing committed before is lost', async () => {
  asRoot();
  const { dir, cleanup } = await tempDir();
  const mount = path.join(dir, 'disk');
  await mkdir(mount);
  try {
    const r = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c',
      `mount -t tmpfs -o size=2m tmpfs "$0" && "$1" --import tsx "$2" fill "$0"`, mount, process.execPath, WRITER], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    const line = r.stdout.split('\n').find((l) => l.startsWith('FAILED '));
    assert.ok(line, `the worker reported its failure: ${r.stdout}\n${r.stderr}`);
    const { error, warnings } = JSON.parse(line!.slice(7)) as { error: { code: string; message: string }; warnings: string[] };
    assert.is(error.code, 'ORYX_E_SQLITE_FULL');
    // The statements being written (an append, a session with the last run's record riding along), never a bare COMMIT.
    assert.match(error.message, /database or disk is full \(SQLITE_FULL\) in: (COMMIT of )?(INSERT INTO|UPDATE) (messages|sessions|runs) /, error.message);
    assert.not.match(error.message, 'session_leases');
    assert.not.ok(warnings.some((w) => /lease/.test(w) && /full/.test(w)), warnings.join('\n'));
  } finally {
    await rm(mount, { recursive: true, force: true });
    await cleanup();
  }
});

test.run();
