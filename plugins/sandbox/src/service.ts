import type { ExecRequest, LaunchDecision, Sandbox, SandboxAction, SandboxAgent, SandboxContext, SandboxDecision, SandboxEvent } from '@oryxos/contracts';
import { describeAction } from '@oryxos/plugin-kit';
import type { Verdict } from './policy.ts';
import type { AllowListSandbox, CapabilityKind } from './sandbox.ts';

/** Why every action is denied when the deciding code could not be loaded (a broken install). */
const broken = (error: unknown) => `the sandbox could not decide (${(error as Error).message})`;

/**
 * The `sandbox` service as other plugins and the kernel hold it: the {@link AllowListSandbox}
 * methods, whose code loads on the first call, once, to decide by the policy built at start.
 * After that each method is a direct call. Never throws: when the code cannot be loaded, every
 * action is denied with the reason.
 */
export class SandboxService implements Sandbox {
  private impl: AllowListSandbox | undefined;
  private loading: Promise<AllowListSandbox> | undefined;
  /** `protect` and `denyOperator` calls made before the first decision, applied in order when the code loads. */
  private readonly pending: [string, string, 'protect' | 'deny'][] = [];

  /** `record` writes a decision worth keeping to the audit trail (every denial this service gives). */
  constructor(private readonly load: () => Promise<AllowListSandbox>, private readonly record: (event: SandboxEvent) => Promise<void> = async () => {}) {}

  /**
   * Every denial is audited here, once: an `ask` inside a tool call is the approvals plugin's to
   * record (with its decision), and a probe (what would a call need?) is not a decision.
   */
  private async audited<D extends { allow: boolean; reason?: string; ask?: boolean }>(action: SandboxAction, ctx: SandboxContext | undefined, decision: D): Promise<D> {
    if (decision.allow || ctx?.probe || (decision.ask && ctx?.toolCallId)) return decision;
    await this.record({
      decision: decision.ask ? 'ask' : 'deny', kind: action?.kind ?? 'unknown' as SandboxAction['kind'], target: describeAction(action), reason: decision.reason,
      origin: ctx?.origin, agent: ctx?.agent?.name ?? ctx?.run?.agent.name, sessionId: ctx?.run?.sessionId, runId: ctx?.run?.runId, toolCallId: ctx?.toolCallId,
    });
    return decision;
  }

  /** Loads the allow-list sandbox, once. */
  private ready(): Promise<AllowListSandbox> {
    return this.loading ??= this.load().then((impl) => {
      return Promise.all(this.pending.splice(0).map(([file, why, kind]) => (kind === 'protect' ? impl.protect(file, why) : impl.denyOperator(file, why))))
        .then(() => (this.impl = impl));
    });
  }

  async enforce(action: SandboxAction, ctx?: SandboxContext): Promise<SandboxDecision> {
    const decision: SandboxDecision = this.impl ? await this.impl.enforce(action, ctx)
      : await this.ready().then((s) => s.enforce(action, ctx), (error) => ({ allow: false, reason: `${broken(error)}, so the action is denied` }));
    return this.audited(action, ctx, decision);
  }

  /** {@link AllowListSandbox.evaluate}: the three-valued verdict. */
  evaluate(action: SandboxAction, ctx?: SandboxContext): Promise<Verdict> {
    return this.impl ? this.impl.evaluate(action, ctx)
      : this.ready().then((s) => s.evaluate(action, ctx), (error) => ({ outcome: 'deny', reason: `${broken(error)}, so the action is denied` }));
  }

  async launch(request: ExecRequest, ctx?: SandboxContext): Promise<LaunchDecision> {
    const decision: LaunchDecision = this.impl ? await this.impl.launch(request, ctx)
      : await this.ready().then((s) => s.launch(request, ctx), (error) => ({ allow: false, reason: `${broken(error)}, so the process is not started` }));
    return this.audited({ kind: 'exec', ...request }, ctx, decision);
  }

  /** {@link AllowListSandbox.unavailable}: why no action of `kind` can be allowed for the agent. */
  unavailable(kind: CapabilityKind, agent?: SandboxAgent): Promise<string | undefined> {
    return this.impl ? this.impl.unavailable(kind, agent) : this.ready().then((s) => s.unavailable(kind, agent), broken);
  }

  /** Adds a control file no agent may write (before the first decision: as the code loads). */
  protect(file: string, why: string): void {
    if (this.impl) this.impl.protect(file, why);
    else this.pending.push([file, why, 'protect']);
  }

  /**
   * Denies a file of the operator's (the database files, wherever they are) to every agent,
   * reads too; not part of the kernel's `Sandbox` (the plugin calls it for itself).
   */
  denyOperator(file: string, why: string): void {
    if (this.impl) void this.impl.denyOperator(file, why);
    else this.pending.push([file, why, 'deny']);
  }

  /** Closes the proxies of launches that were never told `done()` (nothing when the sandbox never loaded). */
  async close(): Promise<void> {
    const impl = await this.loading?.catch(() => undefined);
    await impl?.close();
  }
}
