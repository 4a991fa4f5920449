/**
 * What the sandbox loads on its first decision: the allow-list sandbox that decides by the
 * policy built at start, and the confinement it launches programs with. A command that never
 * asks the sandbox (`oryx agents`, `oryx sessions`) loads none of it.
 */
import type { PluginContext } from '@oryxos/kernel';
import type { SandboxEvent } from '@oryxos/contracts';
import { probe, type Mechanism } from './confine.ts';
import { AllowListSandbox } from './sandbox.ts';
import type { BuiltPolicy } from './warnings.ts';

/**
 * The sandbox deciding by the built global policy, auditing what confined programs connect to.
 * Confinement is probed on the first launch that needs it.
 */
export function startSandbox(built: BuiltPolicy, ctx: Pick<PluginContext, 'log' | 'hasService' | 'service'>): AllowListSandbox {
  const { bwrap, socat, prlimit } = built.tools;
  let mechanism: Promise<Mechanism | string> | undefined;
  const record = (event: SandboxEvent) => {
    if (!ctx.hasService('audit')) return;
    ctx.service('audit').sandboxEvent(event).catch((error: Error) => ctx.log.warn(`could not audit ${event.target}: ${error.message}`));
  };
  const sandbox = new AllowListSandbox(built.policy, {
    root: built.policy.root, workspace: built.workspace, log: ctx.log, record,
    confinement: () => (mechanism ??= bwrap ? probe(bwrap, { socat, prlimit }) : Promise.resolve('bubblewrap (bwrap) was not found on PATH')),
  });
  void sandbox.startCleanup();
  return sandbox;
}
