// What the terminal shows for a tool call waiting for approval: a unified diff of a write or
// an edit against the real file, the arguments otherwise; and how answers are read.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { askApproval, describeQuestion, parseAnswer, proposedDiff } from '../src/approval-prompt.ts';

const plain = { red: (s: string) => `<r>${s}`, yellow: (s: string) => s, green: (s: string) => `<g>${s}`, dim: (s: string) => s };

test('write_file and edit_file show a unified diff against the file on disk; other tools their arguments', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-approval-'));
  try {
    await writeFile(path.join(dir, 'notes.txt'), 'one\ntwo\nthree\n');
    const write = await proposedDiff({ tool: 'write_file', args: { path: 'notes.txt', content: 'one\n2\nthree\n' }, reasons: [] }, dir);
    assert.equal(write!.split('\n'), ['--- a/notes.txt', '+++ b/notes.txt', '@@ -1,3 +1,3 @@', ' one', '-two', '+2', ' three']);
    const created = await proposedDiff({ tool: 'write_file', args: { path: 'new.txt', content: 'hello\n' }, reasons: [] }, dir);
    assert.match(created!, /^--- \/dev\/null\n\+\+\+ b\/new\.txt\n@@ -0,0 \+1,1 @@\n\+hello$/);
    const edit = await proposedDiff({ tool: 'edit_file', args: { path: 'notes.txt', old: 'three', new: 'THREE' }, reasons: [] }, dir);
    assert.match(edit!, /-three\n\+THREE/);
    await writeFile(path.join(dir, 'twice.txt'), 'x\nx\n');
    assert.is(await proposedDiff({ tool: 'edit_file', args: { path: 'twice.txt', old: 'x', new: 'y' }, reasons: [] }, dir), undefined, 'an edit that would not apply shows its arguments');
    assert.is(await proposedDiff({ tool: 'shell', args: { command: 'git' }, reasons: [] }, dir), undefined);

    const shown = await describeQuestion({ tool: 'write_file', args: { path: 'notes.txt', content: 'one\n2\nthree\n' }, reasons: ['write of "notes.txt" needs approval'] }, dir, plain, (t) => t.replaceAll('\x1b', '\\x1b'));
    assert.match(shown, /\? write_file needs your approval\n {2}write of "notes.txt" needs approval\n/);
    assert.match(shown, /<r>-two\n {2}<g>\+2/);
    const shell = await describeQuestion({ tool: 'shell', args: { command: 'git', args: ['push', '\x1b[2J'] }, reasons: [] }, dir, plain, (t) => t.replaceAll('\x1b', '\\x1b'));
    assert.match(shell, /"command": "git"/);
    assert.not.match(shell, /\x1b/, 'what the model wrote is cleaned before it reaches the terminal');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('answers: y / n / a in any case, empty is no, Ctrl-D is no, three wrong answers are no', async () => {
  assert.equal(['y', 'YES', 'n', '', 'a', 'Always', 'maybe'].map(parseAnswer), ['approve', 'approve', 'deny', 'deny', 'always', 'always', undefined]);
  const asked: string[] = [];
  const script = (answers: (string | undefined)[]) => async (q: string) => { asked.push(q); return answers.shift(); };
  assert.is(await askApproval(script(['what', 'a'])), 'always');
  assert.match(asked[1]!, /^Please answer y, n or a\./);
  assert.is(await askApproval(script([undefined])), 'deny');
  assert.is(await askApproval(script(['x', 'x', 'x', 'y'])), 'deny');
});

test.run();
