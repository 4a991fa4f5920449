import { STAGE, pluginPackage, type Plugin } from '@oryxos/kernel';
import { validateOptions } from '@oryxos/schema-kit';
import { sandboxError } from './errors.ts';
import { optionsShape, parseRules, type SandboxOptions } from './options.ts';
import { SandboxService } from './service.ts';
import { buildPolicy } from './warnings.ts';

export { ERROR_CODES, type SandboxErrorCode } from './errors.ts';
export type { SandboxOptions, ExecAllowEntry, ExecLimits } from './options.ts';
export type { AllowListSandbox, CapabilityKind } from './sandbox.ts';
export type { Verdict } from './policy.ts';
export { sandboxWarnings, type SandboxPlace } from './warnings.ts';
export { PROTECTED_NAMES } from './protected-names.ts';

/**
 * Deny-by-default sandbox: provides the kernel's `sandbox` service from allow-lists for
 * files, commands, HTTP and SMTP. Everything not listed is denied; `sandbox()` with no
 * options denies everything. Control files are never written unless opted in by name, and
 * every child process runs confined by the same policy (bubblewrap). Agents narrow it (never
 * widen it) with `sandbox:` in AGENT.md.
 *
 * @example
 * // oryx.config.ts
 * sandbox({
 *   files: { read: ['.'], write: ['.'], deny: ['.oryxos/oryx.db', '.oryxos/oryx.db-wal', '.oryxos/oryx.db-shm'] },
 *   exec: { allow: ['git', { command: 'npm', args: ['test|run'], rest: '[\\w:-]+' }], env: ['LANG'] },
 *   http: { allow: ['api.github.com', '*.wikipedia.org', 'http://127.0.0.1:8080'] },
 *   smtp: { allow: ['smtp.example.com:587'] },
 * })
 */
export default function sandbox(options: SandboxOptions = {}): Plugin {
  // The shape is checked here; parseRules (shared with AGENT.md frontmatter) then checks each entry.
  const parsed = parseRules(validateOptions(optionsShape, options, { plugin: 'sandbox', code: 'ORYX_E_SANDBOX_OPTIONS', example: 'sandbox({ files: { read: ["."] } })' }));
  if (!parsed.ok) {
    throw sandboxError('ORYX_E_SANDBOX_OPTIONS', `sandbox(): option ${parsed.field} ${parsed.message}`, {
      hint: `Fix ${parsed.field} in sandbox({...}) in oryx.config.ts; see the option table in the @oryxos/plugin-sandbox README.`,
      data: { field: parsed.field },
    });
  }
  return {
    ...pluginPackage(import.meta.url),
    name: 'sandbox',
    provides: ['sandbox'],
    options: parsed.rules,
    async setup(ctx) {
      // Roots are resolved once, here, before any other plugin's init can ask for a decision.
      const { root, workspaceDir, file } = ctx.config;
      const built = await buildPolicy(parsed.rules, { root, workspaceDir, configFile: file });
      for (const warning of built.warnings) ctx.log.warn(`${warning}`);
      // What the deny entries are now is kept for the next start (a command that only reads writes nothing).
      if (built.policy.book.changed && !ctx.readOnly) {
        const { writeBook } = await import('./deny-identity.ts');
        await writeBook(built.bookFile, built.policy.book.book).catch((error: Error) => ctx.log.debug(`could not record the deny entries' identities in ${built.bookFile}: ${error.message}`));
      }
      // The code that decides and confines loads on the first decision: a command that never
      // asks the sandbox (`oryx agents`, `oryx sessions`) does not load it.
      const service = new SandboxService(async () => (await import('./runtime.ts')).startSandbox(built, ctx), async (event) => {
        if (!ctx.hasService('audit')) return;
        await ctx.service('audit').sandboxEvent(event).catch((error: Error) => ctx.log.warn(`could not audit a sandbox denial (${event.target}): ${error.message}`));
      });
      ctx.provide('sandbox', service);
      ctx.hooks.init.tapPromise({ stage: STAGE.LATE }, async () => {
        // The database is a control file wherever its plugin keeps it.
        if (!ctx.hasService('database')) return;
        let url: string | undefined;
        try { url = ctx.service('database').url; } catch { return; }
        if (!url?.startsWith('file:')) return;
        const db = url.slice('file:'.length);
        for (const suffix of ['', '-wal', '-shm', '-journal', '.seen.json']) {
          service.protect(`${db}${suffix}`, 'it is the database (sessions and the audit trail)');
          service.denyOperator(`${db}${suffix}`, 'the database: sessions and the audit trail');
        }
      });
      ctx.hooks.close.tapPromise(() => service.close());
    },
  };
}

export { sandbox };
