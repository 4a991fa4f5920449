/**
 * The one way plugins pass the sandbox: `enforceAction` for an action, `prepareExec` for a
 * process. Both ask the kernel's `sandbox` service with the caller's context and write every
 * denial to the audit service (when one is enabled), so a plugin's denial leaves a row
 * without code of its own.
 */
import type { PluginContext } from './context.ts';
import { OryxError } from './errors.ts';
import type { ExecLaunch, ExecRequest, SandboxAction, SandboxContext } from './types.ts';

/** What the gate needs from whoever asks: a plugin's context, or the kernel itself. */
export type GateHost = Pick<PluginContext, 'service' | 'hasService' | 'log'>;

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

/** Writes a denial (or an ask) to the audit service; a failure to write is a warning, never the caller's error. */
async function auditDenial(host: GateHost, action: SandboxAction, reason: string, ctx: SandboxContext, decision: 'deny' | 'ask' = 'deny'): Promise<void> {
  if (!host.hasService('audit')) return;
  try {
    await host.service('audit').sandboxEvent({
      decision, kind: action.kind, target: describeAction(action), reason,
      origin: ctx.origin, agent: ctx.agent?.name ?? ctx.run?.agent.name,
      sessionId: ctx.run?.sessionId, runId: ctx.run?.runId, toolCallId: ctx.toolCallId,
    });
  } catch (error) {
    host.log.warn(`audit: could not record a sandbox denial (${describeAction(action)}): ${(error as Error).message}`);
  }
}

function denied(action: SandboxAction, reason: string, ask?: boolean): OryxError {
  if (ask) {
    // Asked for where nobody can be asked (the point of I/O, a plugin's own action): it does not happen.
    return new OryxError('ORYX_E_SANDBOX_ASK', `Needs a person's approval, which can only be asked before a tool call starts: ${reason}`, {
      hint: 'Declare the action in the tool\'s actions() so it is asked for before the call, or move it from an ask list to an allow list.',
      data: { action, reason },
    });
  }
  return new OryxError('ORYX_E_SANDBOX_DENIED', `Denied by the sandbox: ${reason}`, {
    hint: 'Allow the action in the sandbox options of oryx.config.ts, or in the agent\'s sandbox: frontmatter.',
    data: { action, reason },
  });
}

/**
 * Throws ORYX_E_SANDBOX_DENIED unless the kernel's sandbox allows the action, after auditing
 * the denial; ORYX_E_SANDBOX_ASK for an action that needs a person's approval the context does
 * not hold (`approvedActions`). Give the context you have: the run (inside a tool call) and what is asking.
 *
 * @example
 * await enforceAction(ctx, { kind: 'smtp', host, port }, { origin: 'notify channel ops' });
 */
export async function enforceAction(host: GateHost, action: SandboxAction, ctx: SandboxContext = {}): Promise<void> {
  const agent = ctx.agent ?? ctx.run?.agent;
  const decision = await host.service('sandbox').enforce(action, { ...ctx, agent });
  if (decision.allow) return;
  // Inside a tool call the executor asks the person and audits the request with its approval.
  if (!(decision.ask && ctx.toolCallId)) await auditDenial(host, action, decision.reason, ctx, decision.ask ? 'ask' : 'deny');
  throw denied(action, decision.reason, decision.ask);
}

/**
 * The one exec path: checks the whole launch (program, arguments, working folder, environment)
 * and returns how to start it — confined by the policy when the sandbox supports it. Every
 * child process OryxOS starts goes through here. Throws ORYX_E_SANDBOX_DENIED (audited), or
 * ORYX_E_SANDBOX_ASK when the launch needs an approval the context does not hold.
 *
 * @example
 * const launch = await prepareExec(ctx, { command: 'git', args: ['status'] }, { origin: 'scheduler task nightly' });
 * const child = spawn(launch.file, launch.args, { cwd: launch.cwd, env: launch.env });
 * launch.started(child.pid);
 * child.on('close', () => void launch.done());
 */
export async function prepareExec(host: GateHost, request: ExecRequest, ctx: SandboxContext = {}): Promise<ExecLaunch> {
  const agent = ctx.agent ?? ctx.run?.agent;
  const decision = await host.service('sandbox').launch(request, { ...ctx, agent });
  if (decision.allow) return decision.launch;
  const action: SandboxAction = { kind: 'exec', ...request };
  if (!(decision.ask && ctx.toolCallId)) await auditDenial(host, action, decision.reason, ctx, decision.ask ? 'ask' : 'deny');
  throw denied(action, decision.reason, decision.ask);
}
