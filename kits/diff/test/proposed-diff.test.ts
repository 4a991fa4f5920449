// The unified diff a door shows for a write or an edit waiting for approval, against the real
// file; none for other tools, edits that would not apply, or (for a server) paths outside the project.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { proposedDiff } from '../src/index.ts';

test('write_file and edit_file give a unified diff against the file on disk; other tools none', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-diff-'));
  try {
    await writeFile(path.join(dir, 'notes.txt'), 'one\ntwo\nthree\n');
    const write = await proposedDiff({ tool: 'write_file', args: { path: 'notes.txt', content: 'one\n2\nthree\n' } }, dir);
    assert.equal(write!.split('\n'), ['--- a/notes.txt', '+++ b/notes.txt', '@@ -1,3 +1,3 @@', ' one', '-two', '+2', ' three']);
    const created = await proposedDiff({ tool: 'write_file', args: { path: 'new.txt', content: 'hello\n' } }, dir);
    assert.match(created!, /^--- \/dev\/null\n\+\+\+ b\/new\.txt\n@@ -0,0 \+1,1 @@\n\+hello$/);
    const edit = await proposedDiff({ tool: 'edit_file', args: { path: 'notes.txt', old: 'three', new: 'THREE' } }, dir);
    assert.match(edit!, /-three\n\+THREE/);
    await writeFile(path.join(dir, 'twice.txt'), 'x\nx\n');
    assert.is(await proposedDiff({ tool: 'edit_file', args: { path: 'twice.txt', old: 'x', new: 'y' } }, dir), undefined, 'an edit that would not apply');
    assert.is(await proposedDiff({ tool: 'shell', args: { command: 'git' } }, dir), undefined);
    assert.is(await proposedDiff({ tool: 'write_file', args: { path: 'notes.txt', content: 3 } }, dir), undefined);
    const long = await proposedDiff({ tool: 'write_file', args: { path: 'long.txt', content: 'x\n'.repeat(50) } }, dir, { maxLines: 10 });
    assert.equal(long!.split('\n').slice(-2), ['+x', '… 43 more lines']);
    assert.is(await proposedDiff({ tool: 'write_file', args: { path: 'notes.txt', content: 'short\n' } }, dir, { maxBytes: 10 }), undefined, 'the file on disk is too big');
    assert.is(await proposedDiff({ tool: 'write_file', args: { path: 'new.txt', content: 'x'.repeat(11) } }, dir, { maxBytes: 10 }), undefined, 'the new content is too big');
    assert.ok(await proposedDiff({ tool: 'write_file', args: { path: 'new.txt', content: 'x'.repeat(10) } }, dir, { maxBytes: 10 }));
    // Two long texts with nothing in common take long to diff: past the time allowed there is none.
    await writeFile(path.join(dir, 'big.txt'), Array.from({ length: 20_000 }, (_, i) => `old ${i}`).join('\n'));
    const different = Array.from({ length: 20_000 }, (_, i) => `new ${i}`).join('\n');
    assert.is(await proposedDiff({ tool: 'write_file', args: { path: 'big.txt', content: different } }, dir, { timeoutMs: 5 }), undefined);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('insideRoot: a path outside the root, by .. or through a link, gets no diff and is not read', async () => {
  const base = await mkdtemp(path.join(tmpdir(), 'oryx-diff-root-'));
  try {
    const root = path.join(base, 'project');
    await mkdir(path.join(root, 'src'), { recursive: true });
    await writeFile(path.join(base, 'secret.txt'), 'the secret\n');
    await symlink(base, path.join(root, 'out'));
    const call = (p: string) => ({ tool: 'write_file', args: { path: p, content: 'x\n' } });
    assert.match((await proposedDiff(call('../secret.txt'), root))!, /-the secret/, 'without the option the file is read (the terminal)');
    assert.is(await proposedDiff(call('../secret.txt'), root, { insideRoot: true }), undefined);
    assert.is(await proposedDiff(call(path.join(base, 'secret.txt')), root, { insideRoot: true }), undefined, 'an absolute path outside');
    assert.is(await proposedDiff(call('out/secret.txt'), root, { insideRoot: true }), undefined, 'through a link');
    assert.is(await proposedDiff(call('out/new/deeper.txt'), root, { insideRoot: true }), undefined, 'a new file under a link');
    assert.match((await proposedDiff(call('src/new/a.txt'), root, { insideRoot: true }))!, /^--- \/dev\/null\n\+\+\+ b\/src\/new\/a\.txt/, 'a new file inside');
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});

test.run();
