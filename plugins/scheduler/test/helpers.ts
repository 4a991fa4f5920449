import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Plugin } from '@oryxos/kernel';
import { scripted, testKernel, type ScriptStep, type TestKernel } from '@oryxos/kernel/testing';
import sqlite from '@oryxos/plugin-sqlite';
import scheduler, { type ExecutionRow, type SchedulerOptions } from '../src/index.ts';

export async function tempDir(prefix = 'oryx-scheduler-'): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A model that answers every request (`answer N`), after `delayMs` (which honours the run's abort). */
export function model(step: (n: number) => ScriptStep = (n) => ({ text: `answer ${n}` })) {
  return scripted(Array.from({ length: 2000 }, (_, i) => () => step(i + 1)));
}

/** A kernel on `dir` with the scripted model, sqlite and the scheduler (plus `extra` plugins). */
export function schedulerKernel(dir: string, options: SchedulerOptions = {}, extra: { plugins?: Plugin[]; step?: (n: number) => ScriptStep } = {}): Promise<TestKernel> {
  return testKernel({
    dir,
    plugins: [model(extra.step), sqlite(), scheduler({ refreshMs: 500, leaseMs: 3000, ...options }), ...(extra.plugins ?? [])],
    agents: { assistant: { tools: [] }, reporter: { tools: [] } },
  });
}

export function executions(t: TestKernel, task: string): Promise<ExecutionRow[]> {
  return t.kernel.service('database').query<ExecutionRow>('SELECT * FROM task_executions WHERE task = ? ORDER BY slot', [task]);
}

/** Polls `check` until it returns a value (not undefined/false) or the time runs out. */
export async function waitFor<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000, what = 'the condition'): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function rejection(fn: () => unknown): Promise<any> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}
