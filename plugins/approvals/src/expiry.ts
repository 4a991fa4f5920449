import type { ApprovalStore } from '@oryxos/contracts';
import type { PluginContext } from '@oryxos/kernel';
import { errorMessage } from '@oryxos/provider-spec';

/**
 * While a process serves (`oryx web`, `oryx serve`), approvals whose time is up expire (a
 * denial by `timeout`) and their runs continue, so an unattended run never waits for ever.
 * Several processes may sweep one database: deciding is a compare-and-set, so each approval
 * expires once, and continuing a run is refused once it was continued.
 */
export function startExpiry(ctx: PluginContext, store: ApprovalStore, everyMs: number): void {
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> | undefined;
  const sweep = async () => {
    for (const approval of await store.expireDue()) {
      ctx.log.info(`approval ${approval.id} expired (nobody decided in time); its run continues with a denial`);
      await ctx.runs.continue(approval.runId).catch((error) => ctx.log.warn(`the run of expired approval ${approval.id} did not continue: ${errorMessage(error)}`));
    }
  };
  ctx.hooks.init.tapPromise(async () => {
    timer = setInterval(() => { sweeping ??= sweep().catch((e) => ctx.log.warn(`approval sweep failed: ${errorMessage(e)}`)).finally(() => { sweeping = undefined; }); }, everyMs);
    timer.unref();
  });
  ctx.hooks.close.tapPromise(async () => {
    clearInterval(timer);
    await sweeping;
  });
}
