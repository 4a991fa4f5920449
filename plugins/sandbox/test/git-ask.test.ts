// An ask on `git push` that cannot be stepped around: the spellings that push without the word
// `push` in the first position (global options before it, an alias, the plumbing that pushes)
// all ask, through the real policy and then through the kernel with real git, real
// confinement and a real remote (a bare repository in the project) that must not receive the
// commit unless a person approved.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SandboxAction } from '@oryxos/contracts';
import type { Plugin } from '@oryxos/kernel';
import { scripted, testKernel } from '@oryxos/kernel/testing';
import approvals from '@oryxos/plugin-approvals';
import sqlite from '@oryxos/plugin-sqlite';
import tools from '@oryxos/plugin-tools';
import sandbox, { sandboxWarnings, type AllowListSandbox, type SandboxOptions } from '../src/index.ts';

const run = promisify(execFile);
const GIT_USER = ['-c', 'user.name=u', '-c', 'user.email=u@example.com'];
let base: string;
let root: string;

test.before(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'oryx-git-ask-'));
  root = path.join(base, 'root');
  await mkdir(path.join(root, 'work'), { recursive: true });
  await run('git', ['init', '-q', '--bare', path.join(root, 'remote.git')]);
  const work = path.join(root, 'work');
  await run('git', ['init', '-q', '-b', 'main'], { cwd: work });
  await writeFile(path.join(work, 'a.txt'), 'a\n');
  await run('git', [...GIT_USER, 'add', 'a.txt'], { cwd: work });
  await run('git', [...GIT_USER, 'commit', '-qm', 'first'], { cwd: work });
});
test.after(async () => { await rm(base, { recursive: true, force: true }); });

const ASK_PUSH: SandboxOptions = { files: { read: ['.'], write: ['.'] }, exec: { allow: ['git'], ask: [{ command: 'git', args: ['push'] }] } };
const exec = (args: string[]): SandboxAction => ({ kind: 'exec', command: 'git', args, cwd: 'work' });

test('the policy: every spelling of a push asks, reads and other commands do not', async () => {
  const t = await testKernel({ dir: root, plugins: [sandbox(ASK_PUSH)], agents: { a: { tools: [] } } });
  try {
    const box = t.kernel.service('sandbox') as unknown as AllowListSandbox;
    const cases: [string[], 'ask' | 'allow', RegExp?][] = [
      [['push', 'origin', 'main'], 'ask', /it matches exec\.ask entry \{"command":"git","args":\["push"\]\}$/],
      [['-C', '.', 'push', '../remote.git', 'main'], 'ask', /as git reads it: \["git","push","\.\.\/remote\.git","main"\]/],
      [['--git-dir=.git', 'push', '../remote.git'], 'ask', /as git reads it: \["git","push"/],
      [['--git-dir', '.git', '--work-tree', '.', '--no-pager', 'push'], 'ask', /as git reads it/],
      [['-c', 'alias.p=push', 'p', '../remote.git', 'main'], 'ask', /sets configuration on the command line \(-c alias\.p=push\)/],
      [['--config-env=alias.p=ALIAS', 'p'], 'ask', /sets configuration on the command line/],
      [['send-pack', '../remote.git', 'main'], 'ask', /as git reads it: \["git","push","\.\.\/remote\.git","main"\]/],
      [['http-push', 'https://example.com/r.git', 'main'], 'ask', /as git reads it: \["git","push"/],
      [['remote-https', 'origin', 'https://example.com/r.git'], 'ask', /as git reads it: \["git","push"/],
      [['p'], 'ask', /"p" is not a git command: it is an alias or an external git-p program/],
      [['fetch', '--upload-pack=git push ../remote.git main', '.'], 'ask', /git fetch --upload-pack=.* runs a program it is given/],
      [['rebase', '-x', 'git push', 'HEAD~1'], 'ask', /runs a program it is given/],
      [['submodule', 'foreach', 'git push'], 'ask', /git submodule runs commands/],
      [['--exec-path=/tmp', 'status'], 'ask', /--exec-path/],
      [['--bogus', 'push'], 'ask', /git option --bogus is not one the sandbox knows/],
      [['-C', '.', 'status'], 'allow'],
      [['--no-pager', 'log', '-p'], 'allow'],
      [['commit', '-c', 'HEAD'], 'allow'],
      [['pushy'], 'ask', /not a git command/],
    ];
    for (const [args, outcome, why] of cases) {
      const v = await box.evaluate(exec(args));
      assert.is(v.outcome, outcome, `git ${args.join(' ')}: ${v.outcome === 'allow' ? '' : v.reason}`);
      if (why && v.outcome !== 'allow') assert.match(v.reason, why, args.join(' '));
    }
  } finally {
    await t.close({ keep: true });
  }
});

test('through the kernel, confined: the four spellings ask, a denied one pushes nothing, an approved one pushes', async () => {
  const spellings = [
    ['-C', '.', 'push', '../remote.git', 'main'],
    ['--git-dir=.git', 'push', '../remote.git', 'main'],
    ['-c', 'alias.p=push', 'p', '../remote.git', 'main'],
    ['send-pack', '../remote.git', 'main'],
  ];
  const calls = spellings.map((args, i) => ({ id: `p${i}`, name: 'shell', args: { command: 'git', args, cwd: 'work' } }));
  const llm = scripted([{ toolCalls: calls }, { text: 'tried' }, { toolCalls: [calls[0]!] }, { text: 'pushed' }]);
  const asked: string[] = [];
  let answer: 'approve' | 'deny' = 'deny';
  // The person behind the run's door answers (the approvals plugin asks them).
  const door: Plugin = {
    name: 'test-door', version: '1.0.0', kernel: '^1',
    setup(ctx) { ctx.registerDoor({ name: 'test', ask: async (q) => { if (q.kind === 'approval') asked.push(...q.asks.map((a) => a.reason)); return { decision: answer, by: 'tester' }; } }); },
  };
  const db = sqlite({ url: `file:${path.join(tmpdir(), `oryx-git-ask-${process.pid}-${Date.now()}.db`)}` });
  const t = await testKernel({ dir: root, plugins: [llm, sandbox(ASK_PUSH), tools({ include: ['shell'] }), db, approvals(), door], agents: { a: { tools: ['shell'] } } });
  try {
    await t.service.process({ agent: 'a', message: 'push it', door: 'test' });
    for (const args of spellings) assert.ok(asked.some((r) => r.startsWith(JSON.stringify(['git', ...args]))), `did not ask for git ${args.join(' ')}: ${asked.join('\n')}`);
    const refs = await run('git', ['for-each-ref'], { cwd: path.join(root, 'remote.git') });
    assert.is(refs.stdout, '', 'the remote received something without approval');
    answer = 'approve';
    const ok = await t.service.process({ agent: 'a', message: 'push it now', door: 'test' });
    assert.is(ok.answer, 'pushed');
    const after = await run('git', ['for-each-ref', '--format=%(refname)'], { cwd: path.join(root, 'remote.git') });
    assert.is(after.stdout, 'refs/heads/main\n', 'approved: the push ran (so asking above meant something)');
  } finally {
    await t.close({ keep: true });
  }
});

test('warnings: an ask on another program is advisory; an ask on git is advisory while a shell may run', async () => {
  const place = { root, workspaceDir: path.join(root, '.oryxos') };
  const npm = await sandboxWarnings({ exec: { allow: ['npm'], ask: [{ command: 'npm', args: ['publish'] }] } }, place);
  assert.ok(npm.some((w) => /exec\.ask entry \{"command":"npm","args":\["publish"\]\} matches the arguments of npm by position.*\(npm --option … publish\), so this ask is advisory/.test(w)), npm.join('\n'));
  const shell = await sandboxWarnings({ exec: { allow: ['git', { command: 'sh', args: ['-c'], rest: '.*' }], ask: [{ command: 'git', args: ['push'] }] } }, place);
  assert.ok(shell.some((w) => /exec\.ask entry \{"command":"git","args":\["push"\]\} is advisory while sh may run \(exec\.allow\): they can run git without asking/.test(w)), shell.join('\n'));
  const quiet = await sandboxWarnings(ASK_PUSH, place);
  assert.not.ok(quiet.some((w) => /advisory/.test(w)), quiet.join('\n'));
});

test.run();
