/**
 * @oryxos/sandbox-gate: the one way anything passes the sandbox — `enforceAction` for an action,
 * `prepareExec` for a process. Both ask the `sandbox` service with the caller's context and turn
 * a refusal into an error a tool result can carry; the sandbox itself audits what it denies.
 * And {@link denyAllSandbox}, the kernel's sandbox when no sandbox plugin is enabled.
 */
import type { AuditLog, ExecLaunch, ExecRequest, Sandbox, SandboxAction, SandboxContext, Services } from '@oryxos/contracts';
import { OryxError } from '@oryxos/provider-spec';
import { describeAction } from '@oryxos/schema-kit';

/** What the gate needs from whoever asks: a plugin's context, or the kernel itself. */
export interface GateHost { service<K extends keyof Services>(name: K): Services[K] }

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
 * Throws ORYX_E_SANDBOX_DENIED unless the sandbox allows the action; ORYX_E_SANDBOX_ASK for an action that needs a person's approval the context does
 * not hold (`approvedActions`). Give the context you have: the run (inside a tool call) and what is asking.
 *
 * @example
 * await enforceAction(ctx, { kind: 'smtp', host, port }, { origin: 'notify channel ops' });
 */
export async function enforceAction(host: GateHost, action: SandboxAction, ctx: SandboxContext = {}): Promise<void> {
  const decision = await host.service('sandbox').enforce(action, { ...ctx, agent: ctx.agent ?? ctx.run?.agent });
  if (!decision.allow) throw denied(action, decision.reason, decision.ask);
}

/**
 * The one exec path: checks the whole launch (program, arguments, working folder, environment)
 * and returns how to start it — confined by the policy when the sandbox supports it. Every
 * child process OryxOS starts goes through here. Throws ORYX_E_SANDBOX_DENIED, or
 * ORYX_E_SANDBOX_ASK when the launch needs an approval the context does not hold.
 *
 * @example
 * const launch = await prepareExec(ctx, { command: 'git', args: ['status'] }, { origin: 'scheduler task nightly' });
 * const child = spawn(launch.file, launch.args, { cwd: launch.cwd, env: launch.env });
 * launch.started(child.pid);
 * child.on('close', () => void launch.done());
 */
export async function prepareExec(host: GateHost, request: ExecRequest, ctx: SandboxContext = {}): Promise<ExecLaunch> {
  const decision = await host.service('sandbox').launch(request, { ...ctx, agent: ctx.agent ?? ctx.run?.agent });
  if (decision.allow) return decision.launch;
  throw denied({ kind: 'exec', ...request }, decision.reason, decision.ask);
}

/**
 * The sandbox when no sandbox plugin is enabled: every action and launch is denied, saying so,
 * and each denial is audited as the sandbox plugin audits its own.
 *
 * @example
 * const sandbox = denyAllSandbox(() => auditLogIfAny);
 * await sandbox.enforce({ kind: 'read', path: '/etc/passwd' }); // { allow: false, reason: 'no sandbox plugin is enabled, …' }
 */
export function denyAllSandbox(audit: () => AuditLog | undefined): Sandbox {
  const deny = async (action: SandboxAction, ctx: SandboxContext | undefined, reason: string) => {
    if (!ctx?.probe) {
      await audit()?.sandboxEvent({
        decision: 'deny', kind: action.kind, target: describeAction(action),
        reason, origin: ctx?.origin, agent: ctx?.agent?.name, sessionId: ctx?.run?.sessionId, runId: ctx?.run?.runId, toolCallId: ctx?.toolCallId,
      }).catch(() => {});
    }
    return { allow: false as const, reason };
  };
  return {
    async enforce(action, ctx) { return deny(action, ctx, `no sandbox plugin is enabled, so every ${action.kind} action is denied`); },
    async launch(request, ctx) { return deny({ kind: 'exec', ...request }, ctx, 'no sandbox plugin is enabled, so no program may be started'); },
  };
}
