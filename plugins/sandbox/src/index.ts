import { realpath } from 'node:fs/promises';
import { validateOptions, type Plugin } from '@oryxos/kernel';
import { sandboxError } from './errors.ts';
import { optionsShape, parseRules, type SandboxOptions } from './options.ts';
import { Policy } from './policy.ts';
import { AllowListSandbox } from './sandbox.ts';

export { ERROR_CODES, type SandboxErrorCode } from './errors.ts';
export type { SandboxOptions, ExecAllowEntry } from './options.ts';
export { AllowListSandbox } from './sandbox.ts';

const VERSION = '0.1.0';

/**
 * Deny-by-default sandbox: provides the kernel's `sandbox` service from allow-lists for
 * files, commands, HTTP and SMTP. Everything not listed is denied; `sandbox()` with no
 * options denies everything. Agents narrow it (never widen it) with `sandbox:` in AGENT.md.
 *
 * @example
 * // oryx.config.ts
 * sandbox({
 *   files: { read: ['.'], write: ['.'], deny: ['.oryxos/oryx.db', '.oryxos/oryx.db-wal', '.oryxos/oryx.db-shm'] },
 *   exec: { allow: ['git', { command: 'npm', args: ['test|run'], rest: '[\\w:-]+' }] },
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
    name: 'sandbox',
    version: VERSION,
    kernel: '^1',
    async setup(kernel) {
      // Roots are resolved once, here, before any other plugin's init can ask for a decision.
      const root = await realpath(kernel.config.root);
      let policy: Policy;
      try {
        policy = await Policy.build(parsed.rules, { root, scope: 'global', warn: (m) => kernel.log.warn(`sandbox: ${m}`) });
      } catch (error) {
        const field = (error as { field?: string }).field ?? 'files';
        throw sandboxError('ORYX_E_SANDBOX_ROOT', `sandbox(): option ${field} ${(error as Error).message}`, { cause: error, data: { field } });
      }
      kernel.provide('sandbox', new AllowListSandbox(policy, root, kernel.log));
    },
  };
}

export { sandbox };
