// What the terminal shows for a tool call waiting for approval: a unified diff of a write or
// an edit against the real file (computed by @oryxos/diff-kit, tested there), the arguments
// otherwise; and how answers are read.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { askApproval, describeQuestion, parseAnswer } from '../src/approval-prompt.ts';

const plain = { red: (s: string) => `<r>${s}`, yellow: (s: string) => s, green: (s: string) => `<g>${s}`, dim: (s: string) => s };

test('the question shows the unified diff of a write (the diff kit\'s), the arguments of other tools, cleaned', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-approval-'));
  try {
    await writeFile(path.join(dir, 'notes.txt'), 'one\ntwo\nthree\n');
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
