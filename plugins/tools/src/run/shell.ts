import { stat } from 'node:fs/promises';
import type { ToolContext, ToolResult } from '@oryxos/kernel';
import { absolutePath, resolveExecutable } from '@oryxos/plugin-kit';
import { Capture, section } from '../cap.ts';
import type { ToolEnv } from '../builtin.ts';
import { fsProblem } from '../fs-paths.ts';
import { shellPlan, type ShellArgs } from '../tools/shell.ts';
import { isPathLike } from '../which.ts';
import { failure } from './results.ts';

/**
 * Runs `shell` (defined in tools/shell.ts): one program with an argv array through execa,
 * `shell: false` — a command line that needs a shell runs as the `sh -c` the sandbox allowed. Output is captured with its full length; on timeout the whole process group
 * gets SIGTERM, then SIGKILL after `killGraceMs`.
 */
export async function shell(a: ShellArgs, ctx: ToolContext, env: ToolEnv): Promise<ToolResult | string> {
  const o = env.options;
  const plan = shellPlan(a);
  if ('refused' in plan) return failure(plan.refused);
  const cwd = absolutePath(a.cwd ?? '.', env.root);
  try {
    if (!(await stat(cwd)).isDirectory()) return failure(`shell: cwd ${a.cwd} is not a folder`);
  } catch (error) {
    return failure(`shell: cwd ${fsProblem(error, a.cwd ?? '.')}`);
  }
  if (!(await resolveExecutable(plan.command, cwd))) {
    return failure(`shell: command ${JSON.stringify(plan.command)} not found${isPathLike(plan.command) ? '' : ' on PATH'} (or not executable)`);
  }
  // The sandbox returns what to start: the program it checked, confined by its policy, with
  // the minimal environment plus what exec.env allows.
  const launch = await ctx.launch({ command: plan.command, args: plan.args, ...(a.cwd ? { cwd } : {}) });
  const file = launch.program;

  const { execa } = await import('execa');
  const timeoutMs = a.timeoutMs ?? o.shellTimeoutMs;
  const stdout = new Capture(o.maxOutputChars);
  const stderr = new Capture(o.maxOutputChars);
  const child = execa(launch.file, launch.args, {
    cwd: launch.cwd, shell: false, reject: false, stdin: 'ignore', buffer: false, detached: true,
    extendEnv: false, env: launch.env, windowsHide: true,
  });
  launch.started(child.pid);
  child.stdout?.on('data', (d: Buffer) => stdout.push(d));
  child.stderr?.on('data', (d: Buffer) => stderr.push(d));

  let stopped: 'timeout' | 'cancel' | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  // detached: the child leads its own process group, so children it started end with it.
  const signalGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try { process.kill(-child.pid, signal); } catch { try { child.kill(signal); } catch { /* already gone */ } }
  };
  const stop = (why: 'timeout' | 'cancel') => {
    if (stopped) return;
    stopped = why;
    signalGroup('SIGTERM');
    killTimer = setTimeout(() => signalGroup('SIGKILL'), o.killGraceMs);
  };
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  const onAbort = () => stop('cancel');
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  let result;
  try {
    result = await child;
  } finally {
    clearTimeout(timer);
    clearTimeout(killTimer);
    ctx.signal.removeEventListener('abort', onAbort);
    // Whatever the program left running in its group ends with the call.
    signalGroup('SIGKILL');
    await launch.done();
  }
  const r = result as { exitCode?: number; signal?: string; failed: boolean; code?: string; shortMessage?: string };
  if (r.exitCode === undefined && !r.signal && r.failed) {
    return failure(`shell: could not start ${file}: ${r.code ?? r.shortMessage ?? 'unknown error'}`);
  }
  const lines = [`command: ${JSON.stringify([file, ...plan.args])}`];
  if (stopped === 'timeout') lines.push(`timed out after ${timeoutMs} ms: the process and its children were stopped (SIGTERM, then SIGKILL after ${o.killGraceMs} ms)`);
  if (stopped === 'cancel') lines.push('cancelled: the run was aborted and the process stopped');
  lines.push(r.exitCode !== undefined ? `exit code: ${r.exitCode}` : `killed by signal ${r.signal}`);
  lines.push(section('stdout', stdout), section('stderr', stderr));
  const content = lines.join('\n');
  return stopped || r.exitCode !== 0 ? { content, isError: true, retryable: false } : content;
}
