// Two `oryx schedule start` processes (the built CLI) on one database file: every slot runs
// exactly once; one of them killed mid-run leaves its slot recorded interrupted, never run twice,
// and the other keeps going.
import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase, type OpenDatabase } from '@oryxos/plugin-sqlite';
import type { ExecutionRow } from '../src/index.ts';
import { cliProject } from './cli-fixture.ts';
import { sleep, waitFor } from './helpers.ts';

const bin = path.resolve('bin/run.js');

interface Proc { child: ChildProcess; out: string; exited: Promise<number | null> }

function start(dir: string): Proc {
  const child = spawn(process.execPath, [bin, 'schedule', 'start'], {
    cwd: dir, env: { ...process.env, NO_COLOR: '1', ORYX_TEST_DELAY_MS: '400' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const p: Proc = { child, out: '', exited: new Promise((resolve) => child.on('close', (code) => resolve(code))) };
  child.stdout!.on('data', (d) => { p.out += d; });
  child.stderr!.on('data', (d) => { p.out += d; });
  return p;
}

test('two schedulers, 20+ slots: one ok execution per slot; kill one mid-run: its slot is interrupted, none runs twice, the other goes on', async () => {
  const dir = await cliProject({ tasks: [{ name: 'beat', agent: 'assistant', message: 'beat', every: '1s', overlap: 'queue' }] });
  const procs = [start(dir), start(dir)];
  let db: OpenDatabase | undefined;
  try {
    for (const p of procs) await waitFor(() => p.out.includes('oryx scheduler started'), 60_000, `a scheduler to start:\n${p.out}`);
    db = await openDatabase({ kind: 'file', path: path.join(dir, '.oryxos', 'oryx.db') }, { driver: 'libsql', busyTimeoutMs: 5000 });
    const rows = () => db!.query<ExecutionRow>("SELECT * FROM task_executions WHERE task = 'beat' ORDER BY slot");
    await waitFor(async () => (await rows()).filter((e) => e.status === 'ok').length >= 22, 120_000, '22 ok slots');

    // Kill the first process while it runs a slot (each run takes 400 ms of every second).
    const victim = procs[0]!;
    const killed = await waitFor(async () => (await rows()).find((e) => e.status === 'running' && e.owner?.includes(`:${victim.child.pid}:`)), 60_000, 'a run of the first process');
    victim.child.kill('SIGKILL');
    await victim.exited;
    const killedAt = Date.now();
    await waitFor(async () => (await rows()).filter((e) => e.status === 'ok' && Date.parse(e.slot) > killedAt).length >= 5, 60_000, 'five more slots');
    procs[1]!.child.kill('SIGTERM');
    assert.is(await procs[1]!.exited, 0, procs[1]!.out);

    const all = await rows();
    const times = all.map((e) => Date.parse(e.slot));
    for (let i = 1; i < times.length; i++) assert.is(times[i]! - times[i - 1]!, 1000, `one row for every second (after ${all[i - 1]!.slot})`);
    const dead = all.find((e) => e.id === killed.id)!;
    assert.equal([dead.status, dead.error_code], ['error', 'ORYX_E_SCHEDULER_INTERRUPTED']);
    for (const e of all.filter((x) => x.id !== killed.id && x.started_at && Date.parse(x.slot) < Date.now() - 3000)) {
      assert.is(e.status, 'ok', `slot ${e.slot} ran once, ok (${e.error_code ?? ''} ${e.error ?? ''})`);
    }
    assert.ok(all.filter((e) => e.status === 'ok').length >= 27);
    const survivor = String(procs[1]!.child.pid);
    const after = all.filter((e) => e.status === 'ok' && Date.parse(e.slot) > killedAt);
    assert.ok(after.every((e) => e.answer!.endsWith(`from ${survivor}`)), 'after the kill only the survivor runs');
    // No hidden run: each session is titled with its slot; no slot has two, and every session
    // but one the killed process may have opened just before it died belongs to its execution.
    const sessions = await db.query<{ id: string; title: string; n: number }>('SELECT s.id, s.title, COUNT(m.seq) AS n FROM sessions s LEFT JOIN messages m ON m.session_id = s.id GROUP BY s.id');
    const titles = sessions.map((s) => s.title);
    assert.is(new Set(titles).size, titles.length, 'one session per slot');
    const bySession = new Map(all.filter((e) => e.session_id).map((e) => [e.session_id!, e]));
    for (const s of sessions) {
      const e = bySession.get(s.id);
      if (e) assert.is(s.title, `task beat ${e.slot}`);
      else assert.is(s.title, `task beat ${dead.slot}`, 'a session without an execution is the killed slot\'s');
    }
    assert.is(sessions.length, all.filter((e) => e.started_at && e.id !== dead.id).length + sessions.filter((s) => s.title === `task beat ${dead.slot}`).length);
    assert.ok((sessions.find((s) => s.title === `task beat ${dead.slot}`)?.n ?? 0) <= 2, 'the killed run got no further than one exchange');
    assert.match(procs[1]!.out, 'stopped: ');
  } finally {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await db?.close();
    await sleep(10);
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
