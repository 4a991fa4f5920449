import { OryxError, STAGE, type Kernel, type Plugin, type SandboxEvent } from '@oryxos/kernel';
import { MIGRATIONS, OWNER } from './migrations.ts';
import { resolveOptions, type AuditOptions } from './options.ts';
import { AuditRecorder } from './recorder.ts';
import { createRedactor } from './redact.ts';
import { sessionTrace } from './session-trace.ts';

export const PLUGIN_VERSION = '0.1.0';

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
    name: 'audit',
    version: PLUGIN_VERSION,
    kernel: '^1',
    setup(kernel: Kernel) {
      const redact = createRedactor({ redact: opts.redact, defaults: opts.redactDefaults, exact: (text) => kernel.secrets.mask(text) });
      const recorder = new AuditRecorder(() => kernel.service('database'), {
        redact, maxOutputChars: opts.maxOutputChars, maxInputChars: opts.maxInputChars,
      }, kernel.log);
      const tap = { name: 'audit', stage: STAGE.OBSERVE };
      // Sandbox decisions that are not tool calls reach the trail through the kernel's gate;
      // readers (the web console's timeline) query it through the same service.
      const service = {
        sandboxEvent: (event: SandboxEvent) => recorder.sandboxEvent(event),
        sessionTrace: (sessionId: string, query?: { runs?: number }) => sessionTrace(kernel.service('database'), sessionId, query),
      };
      kernel.provide('audit', service);

      // In init, not setup: every plugin is set up by then, in whatever order the config lists them.
      kernel.hooks.init.tapPromise({ name: 'audit' }, async () => {
        if (!kernel.hasService('database')) {
          throw new OryxError('ORYX_E_SERVICE_MISSING', 'The audit plugin writes to the "database" service, and no plugin provides it', {
            hint: 'Add sqlite() from @oryxos/plugin-sqlite (or another database plugin) to `plugins` in oryx.config.ts.',
          });
        }
        await kernel.service('database').migrate(OWNER, MIGRATIONS);
        await recorder.checkSchema();
        if (opts.retentionDays !== undefined) {
          const removed = await recorder.prune(opts.retentionDays);
          if (removed) kernel.log.debug(`audit: pruned ${removed} row(s) older than ${opts.retentionDays} day(s)`);
        }
      });
      kernel.hooks.afterLLM.tapPromise(tap, async (response, info) => {
        await recorder.llmOk(response, info);
        return response;
      });
      kernel.hooks.llmError.tapPromise(tap, async (error, info) => {
        await recorder.llmError(error, info);
      });
      kernel.hooks.afterTool.tapPromise(tap, async (result, info) => {
        await recorder.tool(result, info);
        return result;
      });
    },
  };
}
