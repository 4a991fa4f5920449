// The shell tool's command-line form ({"command": "ls -la"}), the form models trained on
// Claude Code's Bash tool and Codex's shell tool send. The word splitting follows the POSIX
// Shell Command Language, 2.2 Quoting and 2.3 Token Recognition
// (pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html); the runs go through the
// real kernel, the real sandbox and bubblewrap.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allowAll } from '@oryxos/kernel/testing';
import { shellWords } from '../src/shell-words.ts';
import { one, run, tempDir } from './harness.ts';

let dir: string;
let cleanup: () => Promise<void>;
test.before.each(async () => { ({ dir, cleanup } = await tempDir()); });
test.after.each(async () => { await cleanup(); });

const allow = (...commands: (string | { command: string; args: string[] })[]) => ({ sandbox: { files: { read: ['.'] }, exec: { allow: commands } } });

test('words: quotes and backslashes as a POSIX shell reads them', () => {
  assert.equal(shellWords(`git commit -m "first commit"`), { words: ['git', 'commit', '-m', 'first commit'] });
  assert.equal(shellWords(`echo 'it''s' "a \\"b\\" \\\\ \\x" c\\ d`), { words: ['echo', 'its', 'a "b" \\ \\x', 'c d'] });
  assert.equal(shellWords(`  ls   -la\tsrc  `), { words: ['ls', '-la', 'src'] });
  assert.equal(shellWords(`printf '%s|%s' a 'b;c' "\\$HOME"`), { words: ['printf', '%s|%s', 'a', 'b;c', '$HOME'] });
  assert.equal(shellWords(`echo ''`), { words: ['echo', ''] });
  assert.equal(shellWords(`"A=1" x`), { words: ['A=1', 'x'] });
  assert.equal(shellWords('a#b --x=~'), { words: ['a#b', '--x=~'] });
});

test('words: what only a shell does is named, never split into words', () => {
  for (const [line, feature] of [
    ['ls | wc -l', 'a pipe (|)'], ['make && make test', 'a control operator (&, &&)'], ['a; b', 'a command separator (;)'],
    ['echo x > out.txt', 'a redirection (>)'], ['wc -l < in', 'a redirection (<)'], ['echo $(id)', 'a substitution or variable ($)'],
    ['echo "$HOME"', 'a substitution or variable ($)'], ['echo `id`', 'a command substitution (`…`)'], ['ls *.ts', 'a glob (*)'],
    ['cat ~/.ssh/id_rsa', 'a home folder (~)'], ['FOO=1 env', 'a variable assignment (NAME=value)'], ['ls # all', 'a comment (#)'],
    ['a\nb', 'a line break (several commands)'], ['(cd x)', 'a subshell or group ( )'],
  ] as const) {
    assert.equal(shellWords(line), { shell: feature }, line);
  }
  assert.equal(shellWords(`echo 'open`), { error: 'an unterminated single quote' });
  assert.equal(shellWords('echo "open'), { error: 'an unterminated double quote' });
});

test('a command line without shell syntax runs as its words, with no shell (sh not allowed)', async () => {
  await writeFile(path.join(dir, 'two words.txt'), 'hello\n');
  const r = await one(dir, { name: 'shell', args: { command: `cat "two words.txt"` } }, allow('cat'));
  assert.is(r.status, 'ok', r.content);
  assert.match(r.content, /^command: \["\/[^"]*\/cat","two words\.txt"\]$/m);
  assert.match(r.content, /--- stdout \(6 bytes\) ---\nhello\n/);
});

test('the split argv is what the sandbox checks: an argument rule applies to each word', async () => {
  const [ok, denied] = await run(dir, [
    { name: 'shell', args: { command: 'ls -1 .' } },
    { name: 'shell', args: { command: 'ls -la /etc' } },
  ], allow({ command: 'ls', args: ['-1', '\\.'] }));
  assert.is(ok!.status, 'ok', ok!.content);
  assert.is(denied!.status, 'denied', denied!.content);
  assert.match(denied!.content, /argument 1 \("-la"\) does not match/);
});

test('a pipe with no shell allowed is refused, naming the exec rule that would allow it; nothing runs', async () => {
  const r = await one(dir, { name: 'shell', args: { command: `ls | tee made-by-shell.txt` } }, allow('ls', 'tee'));
  assert.is(r.status, 'denied', r.content);
  assert.match(r.content, /is not on the exec allow-list/);
  assert.match(r.content, /uses a pipe \(\|\), which only a shell carries out/);
  assert.ok(r.content.includes(String.raw`sandbox({ exec: { allow: [{ command: 'sh', args: ['-c', '[\s\S]*'] }] } })`), r.content);
  assert.match(r.content, /Run one program per call/);
  const { existsSync } = await import('node:fs');
  assert.not.ok(existsSync(path.join(dir, 'made-by-shell.txt')));
});

test('a line that needs a shell runs through sh -c, confined, when the policy allows sh', async () => {
  await writeFile(path.join(dir, 'a.txt'), 'one\ntwo\nthree\n');
  const r = await one(dir, { name: 'shell', args: { command: `cat a.txt | grep -c o && echo "home=$HOME"` } },
    allow({ command: 'sh', args: ['-c', '[\\s\\S]*'] }));
  assert.is(r.status, 'ok', r.content);
  assert.match(r.content, /^command: \["\/[^"]*\/sh","-c","cat a\.txt \| grep -c o && echo \\"home=\$HOME\\""\]$/m);
  assert.match(r.content, /--- stdout \(\d+ bytes\) ---\n2\nhome=/);
});

test('exec.ask on sh: a shell line waits for a person like any asked program (nobody here: denied as unapproved)', async () => {
  const r = await one(dir, { name: 'shell', args: { command: 'ls | wc -l' } }, { sandbox: { files: { read: ['.'] }, exec: { ask: ['sh'] } } });
  assert.is(r.status, 'denied', r.content);
  assert.match(r.content, /needs approval.*nobody could approve it/);
  assert.not.match(r.content, /only a shell carries out/, 'an ask is not the refusal of a policy without a shell');
});

test('confined: a shell line cannot write outside the write roots', async () => {
  const r = await one(dir, { name: 'shell', args: { command: 'echo x > written.txt' } },
    { sandbox: { files: { read: ['.'] }, exec: { allow: ['sh'] } } });
  assert.is(r.status, 'error', r.content);
  assert.match(r.content, /Read-only file system|Permission denied|cannot create/);
});

test('confined: a shell line cannot rewrite the project\'s AGENTS.md or .env (control files, read-only inside)', async () => {
  await writeFile(path.join(dir, 'oryx.config.ts'), 'export default {}\n');
  await writeFile(path.join(dir, 'AGENTS.md'), 'mine\n');
  await writeFile(path.join(dir, '.env'), 'A=1\n');
  const r = await one(dir, { name: 'shell', args: { command: 'echo x > AGENTS.md; echo y > .env; echo z > free.txt' } },
    { sandbox: { files: { read: ['.'], write: ['.'] }, exec: { allow: ['sh'] } }, configFile: path.join(dir, 'oryx.config.ts') });
  const { readFile } = await import('node:fs/promises');
  assert.is(await readFile(path.join(dir, 'free.txt'), 'utf8'), 'z\n', r.content);
  assert.is(await readFile(path.join(dir, 'AGENTS.md'), 'utf8'), 'mine\n', r.content);
  assert.is(await readFile(path.join(dir, '.env'), 'utf8'), 'A=1\n', r.content);
});

test('a line that cannot be read is an error result saying why', async () => {
  const r = await one(dir, { name: 'shell', args: { command: `echo 'open` } }, allow('echo'));
  assert.is(r.status, 'error');
  assert.is(r.content, 'shell: the command line could not be read: it has an unterminated single quote');
});

test('with args, command stays the program, spaces and all (the array form is unchanged)', async () => {
  const r = await one(dir, { name: 'shell', args: { command: 'ls -la', args: [] } }, { plugins: [allowAll()] });
  assert.is(r.status, 'error');
  assert.match(r.content, /command "ls -la" not found on PATH/);
});

test.run();
