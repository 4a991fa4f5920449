import { chmod, link, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { one, run, tempDir } from './harness.ts';

let dir: string;
let cleanup: () => Promise<void>;
test.before.each(async () => { ({ dir, cleanup } = await tempDir()); });
test.after.each(async () => { await cleanup(); });

const p = (...s: string[]) => path.join(dir, ...s);

test('read_file returns the exact text (CRLF and a missing final newline kept)', async () => {
  await writeFile(p('a.txt'), 'one\r\ntwo\nthree');
  const r = await one(dir, { name: 'read_file', args: { path: 'a.txt' } });
  assert.is(r.status, 'ok');
  assert.is(r.content, 'one\r\ntwo\nthree');
});

test('read_file offset and limit select lines and say how to continue', async () => {
  await writeFile(p('n.txt'), Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
  const [win, tail, past] = await run(dir, [
    { name: 'read_file', args: { path: 'n.txt', offset: 2, limit: 3 } },
    { name: 'read_file', args: { path: 'n.txt', offset: 8 } },
    { name: 'read_file', args: { path: 'n.txt', offset: 50 } },
  ]);
  assert.is(win!.content, 'line 3\nline 4\nline 5\n[lines 3-5 shown; more follow: continue with offset 5]');
  assert.is(tail!.content, 'line 9\nline 10\n');
  assert.is(past!.content, '(offset 50 is past the end of n.txt, which has 10 lines)');
});

test('read_file uses maxReadLines when no limit is given', async () => {
  await writeFile(p('n.txt'), 'a\nb\nc\nd\n');
  const r = await one(dir, { name: 'read_file', args: { path: 'n.txt' } }, { tools: { maxReadLines: 2 } });
  assert.is(r.content, 'a\nb\n[lines 1-2 shown; more follow: continue with offset 2]');
});

test('read_file cuts at maxOutputChars and reports the file size', async () => {
  const big = 'x'.repeat(5000) + '\n' + 'y'.repeat(10);
  await writeFile(p('big.txt'), big);
  const r = await one(dir, { name: 'read_file', args: { path: 'big.txt' } }, { tools: { maxOutputChars: 100 } });
  assert.is(r.status, 'ok');
  const [text, note] = r.content.split('\n');
  assert.is(text, 'x'.repeat(100));
  assert.is(note, `[output cut at 100 characters, inside line 1; the file has ${big.length} bytes. Continue with offset 0, or a smaller limit]`);
});

test('read_file refuses a named pipe without blocking on it', async () => {
  execFileSync('mkfifo', [p('pipe')]);
  const [pipe, edit] = await run(dir, [
    { name: 'read_file', args: { path: 'pipe' } },
    { name: 'edit_file', args: { path: 'pipe', old: 'a', new: 'b' } },
  ]);
  assert.is(pipe!.status, 'error');
  assert.match(pipe!.content, /pipe is not a regular file/);
  assert.match(edit!.content, /pipe is not a regular file/);
});

test('read_file refuses folders, binary files and missing files with error results', async () => {
  await mkdir(p('folder'));
  await writeFile(p('bin.dat'), Buffer.from([1, 2, 0, 3]));
  await writeFile(p('doc.pdf'), '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n');
  await writeFile(p('empty.txt'), '');
  const [folder, bin, missing, empty, pdf] = await run(dir, [
    { name: 'read_file', args: { path: 'folder' } },
    { name: 'read_file', args: { path: 'bin.dat' } },
    { name: 'read_file', args: { path: 'nope.txt' } },
    { name: 'read_file', args: { path: 'empty.txt' } },
    { name: 'read_file', args: { path: 'doc.pdf' } },
  ]);
  assert.equal([folder!.status, bin!.status, missing!.status, empty!.status, pdf!.status], ['error', 'error', 'error', 'ok', 'error']);
  assert.match(folder!.content, /folder is a folder; use list_dir/);
  assert.match(bin!.content, /bin\.dat is binary \(4 bytes, application\/octet-stream\)/);
  assert.match(pdf!.content, /doc\.pdf is binary \(\d+ bytes, application\/pdf\)/, 'a PDF by its signature, though it has no NUL');
  assert.match(missing!.content, /nope\.txt does not exist/);
  assert.is(empty!.content, '(empty.txt is empty)');
});

test('write_file creates parent folders and writes the exact content', async () => {
  const r = await one(dir, { name: 'write_file', args: { path: 'deep/er/new.txt', content: 'héllo\n' } });
  assert.is(r.status, 'ok');
  assert.is(r.content, 'Wrote 7 bytes to deep/er/new.txt');
  assert.is(await readFile(p('deep/er/new.txt'), 'utf8'), 'héllo\n');
});

test('write_file replaces by rename: a hard link to the old file keeps the old text; mode kept; no temp left', async () => {
  await writeFile(p('a.txt'), 'old');
  await chmod(p('a.txt'), 0o640);
  await link(p('a.txt'), p('old-link.txt'));
  const before = (await stat(p('a.txt'))).ino;
  const r = await one(dir, { name: 'write_file', args: { path: 'a.txt', content: 'new' } }, { sandbox: { files: { read: ['.'], write: ['.'], allowHardLinks: true } } });
  assert.is(r.status, 'ok');
  assert.is(await readFile(p('a.txt'), 'utf8'), 'new');
  assert.is(await readFile(p('old-link.txt'), 'utf8'), 'old', 'the file was written in place, not replaced');
  assert.is.not((await stat(p('a.txt'))).ino, before);
  assert.is((await stat(p('a.txt'))).mode & 0o777, 0o640);
  assert.equal((await readdir(dir)).filter((n) => n.includes('oryx-tmp')), []);
});

test('write_file onto a folder is an error and leaves no temp file', async () => {
  await mkdir(p('folder'));
  const r = await one(dir, { name: 'write_file', args: { path: 'folder', content: 'x' } });
  assert.is(r.status, 'error');
  assert.match(r.content, /folder is a folder/);
  assert.equal((await readdir(dir)).filter((n) => n.includes('oryx-tmp')), []);
});

test('edit_file replaces one exact, unique match', async () => {
  await writeFile(p('c.ts'), 'const a = 1;\nconst b = 2;\n');
  const r = await one(dir, { name: 'edit_file', args: { path: 'c.ts', old: 'const b = 2;', new: 'const b = 3;' } });
  assert.is(r.status, 'ok');
  assert.is(r.content, 'Replaced 1 occurrence in c.ts at line 2');
  assert.is(await readFile(p('c.ts'), 'utf8'), 'const a = 1;\nconst b = 3;\n');
});

test('edit_file with 0 or several matches changes nothing and says how many', async () => {
  const text = 'x = 1\nx = 1\nx = 1\naaa\n';
  await writeFile(p('d.txt'), text);
  const mtime = (await stat(p('d.txt'))).mtimeMs;
  const [none, many, overlapping] = await run(dir, [
    { name: 'edit_file', args: { path: 'd.txt', old: 'x = 2', new: 'y' } },
    { name: 'edit_file', args: { path: 'd.txt', old: 'x = 1', new: 'y' } },
    { name: 'edit_file', args: { path: 'd.txt', old: 'aa', new: 'b' } },
  ]);
  assert.equal([none!.status, many!.status, overlapping!.status], ['error', 'error', 'error']);
  assert.match(none!.content, /not found in d\.txt \(0 matches\)/);
  assert.match(many!.content, /occurs 3 times in d\.txt \(lines 1, 2, 3\)/);
  assert.match(overlapping!.content, /occurs 2 times/);
  assert.is(await readFile(p('d.txt'), 'utf8'), text);
  assert.is((await stat(p('d.txt'))).mtimeMs, mtime);
});

test('edit_file worst case: 2 MB of "a" and a 30,000-character "a…a" is answered in linear time', async () => {
  await writeFile(p('big.txt'), 'a'.repeat(2 * 1024 * 1024));
  const started = performance.now();
  const r = await one(dir, { name: 'edit_file', args: { path: 'big.txt', old: 'a'.repeat(30_000), new: 'b' } });
  const ms = performance.now() - started;
  assert.match(r.content, /occurs 2067153 times in big\.txt \(lines 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, …\)/);
  // It took 31 s with indexOf in a loop; the scan is linear (~20 ms here), so 1 s is far off.
  assert.ok(ms < 1_000, `${Math.round(ms)} ms`);
});

test('occurrences: overlapping matches, where they start, and periodic needles', async () => {
  const { occurrences } = await import('../src/run/edit-file.ts');
  assert.equal(occurrences('aaaa', 'aa'), { count: 3, first: [0, 1, 2] });
  assert.equal(occurrences('abababab', 'abab'), { count: 3, first: [0, 2, 4] });
  assert.equal(occurrences('xabcabcy', 'abcy'), { count: 1, first: [4] });
  assert.equal(occurrences('aabaabaaa', 'aabaaa'), { count: 1, first: [3] });
  assert.equal(occurrences('abc', 'abcd'), { count: 0, first: [] });
  assert.equal(occurrences('a'.repeat(30), 'a', 3), { count: 30, first: [0, 1, 2] });
});

test('edit_file handles multi-line text and a missing file', async () => {
  await writeFile(p('m.txt'), 'a\nb\nc\n');
  const [ok, missing] = await run(dir, [
    { name: 'edit_file', args: { path: 'm.txt', old: 'a\nb\n', new: 'B\n' } },
    { name: 'edit_file', args: { path: 'gone.txt', old: 'a', new: 'b' } },
  ]);
  assert.is(ok!.status, 'ok');
  assert.is(await readFile(p('m.txt'), 'utf8'), 'B\nc\n');
  assert.is(missing!.status, 'error');
  assert.match(missing!.content, /gone\.txt does not exist/);
});

test('list_dir: depth, sizes, folders with "/", symlinks shown and not followed', async () => {
  await mkdir(p('src/lib'), { recursive: true });
  await writeFile(p('src/index.ts'), '12345');
  await writeFile(p('src/lib/x.ts'), 'x');
  await writeFile(p('README.md'), 'abc');
  await symlink('/etc', p('etc-link'));
  const [shallow, deep] = await run(dir, [
    { name: 'list_dir', args: { path: '.' } },
    { name: 'list_dir', args: { path: 'src', depth: 3 } },
  ]);
  assert.is(shallow!.content, ['.oryxos/', 'README.md (3 bytes)', 'etc-link -> /etc', 'src/'].join('\n'));
  assert.is(deep!.content, ['src/index.ts (5 bytes)', 'src/lib/', 'src/lib/x.ts (1 bytes)'].join('\n'));
});

test('list_dir names a denied subfolder without opening it, and stops at maxListEntries', async () => {
  await mkdir(p('secrets'));
  await writeFile(p('secrets/key.pem'), 'k');
  for (let i = 0; i < 5; i++) await writeFile(p(`f${i}.txt`), '');
  const sandbox = { files: { read: ['.'], deny: ['secrets'] } };
  const [listing, file] = await run(dir, [
    { name: 'list_dir', args: { path: '.', depth: 2 } },
    { name: 'list_dir', args: { path: 'f1.txt' } },
  ], { sandbox });
  const capped = await one(dir, { name: 'list_dir', args: { path: '.' } }, { sandbox, tools: { maxListEntries: 3 } });
  assert.match(listing!.content, /^secrets\/ \[not listed: denied by the sandbox\]$/m);
  assert.not.match(listing!.content, /key\.pem/);
  assert.is(capped!.content.split('\n').length, 4);
  assert.match(capped!.content, /\[listing stopped at 3 entries/);
  assert.is(file!.status, 'error');
  assert.match(file!.content, /is a file, not a folder/);
});

test.run();
