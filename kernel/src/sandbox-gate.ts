/**
 * The one way plugins pass the sandbox: `enforceAction` for an action, `prepareExec` for a
 * process. Both ask the kernel's `sandbox` service with the caller's context and write every
 * denial to the audit service (when one is enabled), so a plugin's denial leaves a row
 * without code of its own.
 */
import path from 'node:path';
import { OryxError } from './errors.ts';
import type { Kernel } from './kernel.ts';
import { resolveExecutable } from './paths.ts';
import type { ExecLaunch, ExecRequest, SandboxAction, SandboxContext } from './types.ts';

/**
 * Variables every child process gets from the environment of OryxOS (when set): what programs
 * need to run and print, nothing that carries a secret or changes what a program does. The
 * sandbox adds the ones its `exec.env` allows.
 */
export const MINIMAL_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TERM', 'TZ', 'TMPDIR', 'SYSTEMROOT', 'WINDIR', 'PATHEXT'] as const;

/** The {@link MINIMAL_ENV} variables that are set in `from` (default: this process). */
export function minimalEnv(from: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of MINIMAL_ENV) { const v = from[name]; if (v !== undefined) env[name] = v; }
  return env;
}

/**
 * An action in one line, for logs and the audit trail. Environment values are never shown
 * (they may be secrets), only their names.
 *
 * @example
 * describeAction({ kind: 'exec', command: 'git', args: ['status'], env: { LANG: 'C' } }) // 'exec ["git","status"] env LANG'
 */
export function describeAction(action: SandboxAction): string {
  switch (action?.kind) {
    case 'file': return `${action.op} ${action.path}`;
    case 'exec': {
      const env = Object.keys(action.env ?? {});
      return `exec ${JSON.stringify([action.command, ...(action.args ?? [])])}${action.cwd ? ` in ${action.cwd}` : ''}${env.length ? ` env ${env.join(' ')}` : ''}`;
    }
    case 'http': return `${action.method} ${action.url}`;
    case 'smtp': return `smtp ${action.host}:${action.port}`;
    default: return 'unknown action';
  }
}

/** Writes a denial to the audit service; a failure to write is a warning, never the caller's error. */
async function auditDenial(kernel: Kernel, action: SandboxAction, reason: string, ctx: SandboxContext): Promise<void> {
  if (!kernel.hasService('audit')) return;
  try {
    await kernel.service('audit').sandboxEvent({
      decision: 'deny', kind: action.kind, target: describeAction(action), reason,
      origin: ctx.origin, agent: ctx.agent?.name ?? ctx.run?.agent.name,
      sessionId: ctx.run?.sessionId, runId: ctx.run?.runId, toolCallId: ctx.toolCallId,
    });
  } catch (error) {
    kernel.log.warn(`audit: could not record a sandbox denial (${describeAction(action)}): ${(error as Error).message}`);
  }
}

function denied(action: SandboxAction, reason: string): OryxError {
  return new OryxError('ORYX_E_SANDBOX_DENIED', `Denied by the sandbox: ${reason}`, {
    hint: 'Allow the action in the sandbox options of oryx.config.ts, or in the agent\'s sandbox: frontmatter.',
    data: { action, reason },
  });
}

/**
 * Throws ORYX_E_SANDBOX_DENIED unless the kernel's sandbox allows the action, after auditing
 * the denial. Give the context you have: the run (inside a tool call) and what is asking.
 *
 * @example
 * await enforceAction(kernel, { kind: 'smtp', host, port }, { origin: 'notify channel ops' });
 */
export async function enforceAction(kernel: Kernel, action: SandboxAction, ctx: SandboxContext = {}): Promise<void> {
  const agent = ctx.agent ?? ctx.run?.agent;
  const decision = await kernel.service('sandbox').enforce(action, { ...ctx, agent });
  if (decision.allow) return;
  await auditDenial(kernel, action, decision.reason, ctx);
  throw denied(action, decision.reason);
}

/**
 * The one exec path: checks the whole launch (program, arguments, working folder, environment)
 * and returns how to start it — confined by the policy when the sandbox supports it. Every
 * child process OryxOS starts goes through here. Throws ORYX_E_SANDBOX_DENIED (audited).
 *
 * @example
 * const launch = await prepareExec(kernel, { command: 'git', args: ['status'] }, { origin: 'scheduler task nightly' });
 * const child = spawn(launch.file, launch.args, { cwd: launch.cwd, env: launch.env });
 * launch.started(child.pid);
 * child.on('close', () => void launch.done());
 */
export async function prepareExec(kernel: Kernel, request: ExecRequest, ctx: SandboxContext = {}): Promise<ExecLaunch> {
  const sandbox = kernel.service('sandbox');
  const action: SandboxAction = { kind: 'exec', ...request };
  const agent = ctx.agent ?? ctx.run?.agent;
  if (sandbox.launch) {
    const decision = await sandbox.launch(request, { ...ctx, agent });
    if (decision.allow) return decision.launch;
    await auditDenial(kernel, action, decision.reason, ctx);
    throw denied(action, decision.reason);
  }
  // A sandbox without launch(): it decides, and the program starts unconfined with the minimal environment.
  await enforceAction(kernel, action, ctx);
  const cwd = path.resolve(kernel.config.root, request.cwd ?? '.');
  const program = await resolveExecutable(request.command, cwd);
  if (!program) throw new Error(`command ${JSON.stringify(request.command)} was not found${request.command.includes('/') ? '' : ' on PATH'}`);
  return {
    file: program, args: request.args, cwd, env: { ...minimalEnv(), ...request.env }, program, confined: false,
    started() {}, async done() {},
  };
}
