// At most once for side effects across a crash (issue 44): a tool that is not idempotent gets a
// durable "started" mark before it runs; a process SIGKILLed between the tool's effect and the
// commit of its result leaves the call started without a result, and whatever picks the run up
// again — `approvals resume` (runs.continue), a new message — gives that call a result saying it
// was interrupted and may have run, never a second execution. Real processes, a real SQLite
// file, the approvals plugin; the effect is a line appended to a file, counted by the test.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeAgents, type TestAgent } from '@oryxos/kernel/testing';

const WORKER = path.join(import.meta.dirname, 'fixtures', 'at-most-once.mts');

/**
 * The worker in `mode`; resolves with its first line starting with `until` — once it has exited,
 * for a `RESULT` (it closes its kernel after) — and rejects if it exits first.
 */
function worker(mode: string, dir: string, args: string[], until: string, env: Record<string, string> = {}): Promise<{ line: string; child: ChildProcess; out: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, mode, dir, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let out = '';
  const seen = new Promise<{ line: string; child: ChildProcess; out: string }>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith(until));
      if (line) resolve({ line, child, out });
    });
    child.stderr!.on('data', (d) => { out += d; });
    child.on('exit', (code) => reject(new Error(`worker ${mode} exited (${code}) before "${until}":\n${out}`)));
  });
  return until === 'RESULT ' ? seen.then(async (r) => { await exited; return r; }) : seen;
}

async function killed(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

const effects = async (dir: string) => (await readFile(path.join(dir, 'effects.log'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
const result = (line: string) => JSON.parse(line.slice('RESULT '.length)) as { runId: string; sessionId?: string; stopReason: string; answer: string };

async function project(agents: Record<string, TestAgent> = { assistant: { tools: ['append', 'post'], approve: ['append'] } }): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'oryx-once-'));
  await writeAgents(path.join(dir, '.oryxos'), agents);
  return dir;
}

test('an approved call killed after its effect is not run again by approvals resume: the model is told it was interrupted', async () => {
  const dir = await project();
  try {
    // One process: the sibling `post` runs, `append` waits for approval, the run suspends.
    const first = result((await worker('start', dir, [], 'RESULT ')).line);
    assert.is(first.stopReason, 'suspended');
    assert.equal(await effects(dir), ['post B'], 'the sibling ran, the asked call did not');

    // Another: approve, continue — the approved call's effect happens, then the process dies.
    const second = await worker('approve-and-continue', dir, [first.runId], 'EFFECT append', { ORYX_TEST_BLOCK_AFTER: 'append' });
    await killed(second.child);
    assert.equal(await effects(dir), ['post B', 'append A']);

    // A third: `oryx approvals resume` is runs.continue of the suspended run.
    const third = result((await worker('continue', dir, [first.runId], 'RESULT ')).line);
    assert.equal(await effects(dir), ['post B', 'append A'], 'neither call ran a second time');
    assert.is(third.stopReason, 'final');
    assert.match(third.answer, /^told: .*Interrupted: this call had started when its process stopped/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a sibling killed after its effect, before the run suspended, is not run again by the next message', async () => {
  const dir = await project();
  try {
    const first = await worker('start', dir, [], 'EFFECT post', { ORYX_TEST_BLOCK_AFTER: 'post' });
    const session = /^SESSION (\S+)/m.exec(first.out)![1]!;
    await killed(first.child);
    assert.equal(await effects(dir), ['post B']);
    // The killed run never ended, so there is nothing to continue: the next message (a new run
    // on the session) closes the open calls — the started one as interrupted, not run again.
    const next = result((await worker('message', dir, [session], 'RESULT ')).line);
    assert.equal(await effects(dir), ['post B'], 'the sibling ran once');
    assert.is(next.stopReason, 'final');
    const results = JSON.parse(next.answer.slice('told: '.length)) as string[];
    assert.ok(results.some((c) => /^Interrupted: this call had started when its process stopped/.test(c)), next.answer);
    assert.ok(results.some((c) => /^Not run: /.test(c)), `the asked call, never decided, is not run either: ${next.answer}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a sub-agent's call killed after its effect is not run again: the caller's call to it is interrupted, and so is the sub-agent's", async () => {
  const dir = await project({ assistant: { tools: [], agents: ['helper'] }, helper: { tools: ['append'] } });
  try {
    const first = await worker('sub-start', dir, [], 'EFFECT append', { ORYX_TEST_BLOCK_AFTER: 'append' });
    const session = /^SESSION (\S+)/m.exec(first.out)![1]!;
    await killed(first.child);
    assert.equal(await effects(dir), ['append S']);
    const next = result((await worker('message', dir, [session], 'RESULT ')).line);
    assert.equal(await effects(dir), ['append S'], "the sub-agent's call ran once");
    assert.is(next.stopReason, 'final');
    assert.match(next.answer, /^told: .*Interrupted: this call had started when its process stopped/, 'the caller is told its sub-agent call was interrupted');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
