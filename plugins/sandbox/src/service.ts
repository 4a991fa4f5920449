import type {
  AgentDefinition, ExecRequest, LaunchDecision, Sandbox, SandboxAction, SandboxContext, SandboxDecision,
} from '@oryxos/kernel';
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

  constructor(private readonly load: () => Promise<AllowListSandbox>) {}

  /** Loads the allow-list sandbox, once. */
  private ready(): Promise<AllowListSandbox> {
    return this.loading ??= this.load().then((impl) => {
      return Promise.all(this.pending.splice(0).map(([file, why, kind]) => (kind === 'protect' ? impl.protect(file, why) : impl.denyOperator(file, why))))
        .then(() => (this.impl = impl));
    });
  }

  enforce(action: SandboxAction, ctx?: SandboxContext): Promise<SandboxDecision> {
    return this.impl ? this.impl.enforce(action, ctx)
      : this.ready().then((s) => s.enforce(action, ctx), (error) => ({ allow: false, reason: `${broken(error)}, so the action is denied` }));
  }

  /** {@link AllowListSandbox.evaluate}: the three-valued verdict. */
  evaluate(action: SandboxAction, ctx?: SandboxContext): Promise<Verdict> {
    return this.impl ? this.impl.evaluate(action, ctx)
      : this.ready().then((s) => s.evaluate(action, ctx), (error) => ({ outcome: 'deny', reason: `${broken(error)}, so the action is denied` }));
  }

  launch(request: ExecRequest, ctx?: SandboxContext): Promise<LaunchDecision> {
    return this.impl ? this.impl.launch(request, ctx)
      : this.ready().then((s) => s.launch(request, ctx), (error) => ({ allow: false, reason: `${broken(error)}, so the process is not started` }));
  }

  /** {@link AllowListSandbox.unavailable}: why no action of `kind` can be allowed for the agent. */
  unavailable(kind: CapabilityKind, agent?: AgentDefinition): Promise<string | undefined> {
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
