import { chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { absolutePath, canonicalPath, resolveExecutable } from '../src/index.ts';

async function inTemp(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'oryx-paths-')));
  try { await fn(dir); } finally { await rm(dir, { recursive: true, force: true }); }
}

test('absolutePath joins without normalizing, and keeps absolute paths', () => {
  assert.is(absolutePath('link/../x', '/p'), `/p${path.sep}link/../x`);
  assert.is(absolutePath('/etc/passwd', '/p'), '/etc/passwd');
});

test('canonicalPath: realpath of the existing part plus the missing rest; link/.. is the parent of the target', () => inTemp(async (dir) => {
  await mkdir(path.join(dir, 'a/deep'), { recursive: true });
  await mkdir(path.join(dir, 'out'));
  await symlink(path.join(dir, 'a/deep'), path.join(dir, 'out/link'));
  assert.is(await canonicalPath(absolutePath('out/link/new/file.txt', dir)), path.join(dir, 'a/deep/new/file.txt'));
  assert.is(await canonicalPath(absolutePath('out/link/../x', dir)), path.join(dir, 'a/x'));
}));

test('canonicalPath follows a dangling symlink to its target, and throws ELOOP on a loop', () => inTemp(async (dir) => {
  await mkdir(path.join(dir, 'project'));
  await symlink('../elsewhere/secret', path.join(dir, 'project/dangling'));
  assert.is(await canonicalPath(path.join(dir, 'project/dangling')), path.join(dir, 'elsewhere/secret'));
  await symlink('b', path.join(dir, 'a'));
  await symlink('a', path.join(dir, 'b'));
  try {
    await canonicalPath(path.join(dir, 'a/x'));
    assert.unreachable('a loop must throw');
  } catch (error) {
    assert.is((error as NodeJS.ErrnoException).code, 'ELOOP');
  }
}));

test('resolveExecutable: PATH (absolute entries only), paths against base, the name of a link kept', () => inTemp(async (dir) => {
  await mkdir(path.join(dir, 'bin'));
  await writeFile(path.join(dir, 'bin/multi'), '#!/bin/sh\n');
  await chmod(path.join(dir, 'bin/multi'), 0o755);
  await symlink('multi', path.join(dir, 'bin/ls'));
  await writeFile(path.join(dir, 'bin/plain'), 'not executable');
  await symlink('bin', path.join(dir, 'bin-link'));
  const envPath = ['', 'bin', path.join(dir, 'bin-link')].join(path.delimiter);
  assert.is(await resolveExecutable('ls', '/', envPath), path.join(dir, 'bin/ls'));
  assert.is(await resolveExecutable('./bin-link/multi', dir, ''), path.join(dir, 'bin/multi'));
  assert.is(await resolveExecutable('plain', '/', envPath), undefined);
  assert.is(await resolveExecutable('ls', dir, ['', 'bin'].join(path.delimiter)), undefined, 'relative PATH entries are skipped');
  assert.is(await resolveExecutable('bin', dir, dir), undefined, 'a folder is not an executable');
  assert.is(await resolveExecutable('ls\0', '/', envPath), undefined);
}));

test.run();
