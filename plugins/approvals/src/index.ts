/**
 * @oryxos/plugin-approvals: a person says yes. A tool call the sandbox answers `ask` for (or a
 * rule: `approve:` in AGENT.md, a tool's own `approval: 'always'`, an MCP `destructiveHint`)
 * waits for a decision: the person behind the run's door now (the CLI's prompt), or a stored
 * approval any process on the database can decide, after which the run continues from its
 * stored step. An approval covers exactly the call it was for — its tool, its arguments, its
 * actions — once.
 */
import { definePlugin, pluginPackage, type Plugin } from '@oryxos/kernel';
import { shape as s, validateOptions } from '@oryxos/schema-kit';
import { attachGuard } from './guard.ts';
import { approvalStore, MIGRATIONS, OWNER } from './store.ts';
import { startExpiry } from './expiry.ts';

export { approvalRef, deniedResult } from './guard.ts';
export { ERROR_CODES } from './errors.ts';

/** Options of {@link approvals}. */
export interface ApprovalsOptions {
  /** How long a stored approval waits, per door of the run that asks, in ms; then it expires (a denial by `timeout`). Default `{ scheduler: 3600000 }`. */
  timeoutMs?: Record<string, number>;
  /** `ask`: a tool its MCP server marks `destructiveHint` asks before every call. Default `allow`. */
  destructive?: 'ask' | 'allow';
  /** How often a serving process expires due approvals and continues their runs. Default 15 s. */
  sweepMs?: number;
}

const OPTIONS = s.object({
  timeoutMs: s.record(s.integer({ above: 0 })).optional(),
  destructive: s.literal('ask', 'allow').optional(),
  sweepMs: s.integer({ min: 100 }).optional(),
});

/**
 * The approvals plugin.
 *
 * @example
 * plugins: [sqlite(), sandbox({ files: { write: ['.'], ask: { write: ['src'] } } }), approvals()]
 */
export default function approvals(options: ApprovalsOptions = {}): Plugin<ApprovalsOptions> {
  const o = validateOptions(OPTIONS, options, { plugin: 'approvals', code: 'ORYX_E_APPROVALS_OPTIONS', example: "approvals({ destructive: 'ask' })" });
  return definePlugin({
    ...pluginPackage(import.meta.url), name: 'approvals', options: o,
    requires: ['database'], provides: ['approvals'], agentKeys: ['approve'],
    settings: {
      pending_approval: {
        default: 'refuse',
        check: (v) => (v === 'refuse' || v === 'deny' ? undefined : 'must be refuse or deny'),
      },
    },
    setup(ctx) {
      const store = approvalStore(() => ctx.service('database'));
      ctx.provide('approvals', store);
      ctx.hooks.init.tapPromise(async () => { await ctx.service('database').migrate(OWNER, MIGRATIONS); });
      attachGuard(ctx, () => store, { timeoutMs: o.timeoutMs ?? { scheduler: 3_600_000 }, destructive: o.destructive ?? 'allow' });
      if (ctx.serving && !ctx.readOnly) startExpiry(ctx, store, o.sweepMs ?? 15_000);
    },
  });
}
