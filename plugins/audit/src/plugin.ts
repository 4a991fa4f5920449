import { STAGE, pluginPackage, type Plugin, type PluginContext } from '@oryxos/kernel';
import type { SandboxEvent } from '@oryxos/contracts';
import { recordInterrupted } from './interrupted.ts';
import { MIGRATIONS, OWNER, checkSchema, pruneOlderThan } from './migrations.ts';
import { resolveOptions, type AuditOptions } from './options.ts';
import type { AuditRecorder } from './recorder.ts';

/** The code that writes and reads the rows (recorder, redactor, trace): loaded on first use, then kept. */
type Runtime = typeof import('./runtime.ts');
let runtime: Runtime | undefined;
let loading: Promise<Runtime> | undefined;
const loadRuntime = () => (loading ??= import('./runtime.ts').then((loaded) => (runtime = loaded)));

/**
 * The audit trail: one `llm_calls` row per model attempt (failures and retries too), one
 * `tool_invocations` row per tool call (errors and denials too), and one `sandbox_events` row
 * per sandbox denial and per connection of a confined process (the `audit` service), redacted
 * before writing. Its tables live in the `database` service (the sqlite plugin), migrated at
 * `init`.
 *
 * @example
 * // oryx.config.ts
 * import { defineConfig } from '@oryxos/kernel';
 * import sqlite from '@oryxos/plugin-sqlite';
 * import audit from '@oryxos/plugin-audit';
 * export default defineConfig({ plugins: [sqlite(), audit({ retentionDays: 90, redact: [/corp-[0-9a-f]{32}/] })] });
 */
export default function audit(options: AuditOptions = {}): Plugin {
  const opts = resolveOptions(options);
  return {
    ...pluginPackage(import.meta.url),
    name: 'audit',
    requires: ['database'],
    provides: ['audit'],
    options: opts,
    setup(ctx: PluginContext) {
      // The recorder's code loads with the first row to write (a command that writes none,
      // such as `oryx agents`, never loads it); after that each tap calls it directly.
      let recorder: AuditRecorder | undefined;
      const firstRow = async () => {
        const { AuditRecorder, createRedactor } = runtime ?? await loadRuntime();
        const redact = createRedactor({ redact: opts.redact, defaults: opts.redactDefaults, exact: (text) => ctx.secrets.mask(text) });
        return (recorder ??= new AuditRecorder(() => ctx.service('database'), {
          redact, maxOutputChars: opts.maxOutputChars, maxInputChars: opts.maxInputChars,
        }, ctx.log));
      };
      const tap = { stage: STAGE.OBSERVE };
      // Sandbox decisions that are not tool calls reach the trail through the kernel's gate;
      // readers (the web console's timeline) query it through the same service.
      const service = {
        sandboxEvent: async (event: SandboxEvent) => (recorder ?? await firstRow()).sandboxEvent(event),
        sessionTrace: async (sessionId: string, query?: { runs?: number }) =>
          (runtime ?? await loadRuntime()).sessionTrace(ctx.service('database'), sessionId, query),
      };
      ctx.provide('audit', service);

      // In init: the database plugin opens its database and migrates its own tables first.
      ctx.hooks.init.tapPromise(async () => {
        const db = ctx.service('database');
        await db.migrate(OWNER, MIGRATIONS);
        // A read-only command checks and prunes nothing at start: sqlite opens its database at
        // the first query (migrating it then), and a command that never queries never opens it.
        // A query of a table that is not there names the table.
        if (ctx.readOnly) return;
        await checkSchema(db);
        // Calls a dead process started and never finished: each gets its row now (once).
        const interrupted = await recordInterrupted(db, ctx.service('sessions'), ctx.hasService('runRecords') ? ctx.service('runRecords') : undefined);
        if (interrupted) ctx.log.warn(`${interrupted} tool call(s) were interrupted by the end of their process (recorded as interrupted in tool_invocations)`);
        if (opts.retentionDays !== undefined) {
          const removed = await pruneOlderThan(db, opts.retentionDays);
          if (removed) ctx.log.debug(`pruned ${removed} row(s) older than ${opts.retentionDays} day(s)`);
        }
      });
      ctx.hooks.afterLLM.tapPromise(tap, async (response, info) => {
        await (recorder ?? await firstRow()).llmOk(response, info);
        return response;
      });
      ctx.hooks.llmError.tapPromise(tap, async (error, info) => {
        await (recorder ?? await firstRow()).llmError(error, info);
      });
      ctx.hooks.afterTool.tapPromise(tap, async (result, info) => {
        await (recorder ?? await firstRow()).tool(result, info);
        return result;
      });
    },
  };
}
