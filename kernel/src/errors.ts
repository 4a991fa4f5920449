export { OryxError, isOryxError, errorMessage, toOryxError, type OryxErrorOptions } from '@oryxos/provider-spec';

/**
 * The kernel's error codes with how to fix each. `test/error-codes.test.ts` checks this
 * table against `kernel/README.md`, so the two never drift.
 */
export const KERNEL_ERROR_CODES = {
  ORYX_E_CONFIG_INVALID: 'Fix the field the message names in oryx.config.ts.',
  ORYX_E_PLUGIN_INVALID: 'A plugin entry must be the object a plugin factory returns: plugins: [sqlite()].',
  ORYX_E_PLUGIN_DUPLICATE: 'Remove the second copy of the plugin from oryx.config.ts.',
  ORYX_E_PLUGIN_MISSING_DEPENDENCY: 'Add the plugin it names to `plugins` in oryx.config.ts.',
  ORYX_E_PLUGIN_KERNEL_MISMATCH: 'Install a plugin version built for this kernel, or upgrade the kernel.',
  ORYX_E_PLUGIN_CYCLE: 'Two plugins require each other; remove one of the `requires` entries.',
  ORYX_E_PLUGIN_SETUP: 'The plugin threw in setup or init: read the cause and fix its options.',
  ORYX_E_HOOK_FAILED: 'A plugin tap threw: the message names the plugin and hook; fix or disable that plugin.',
  ORYX_E_REGISTRY_DUPLICATE: 'Two plugins register the same provider or tool name; rename one (most plugins take a `name` option).',
  ORYX_E_REGISTRY_FROZEN: 'Register providers, tools and services in setup(), not after the kernel has started.',
  ORYX_E_SERVICE_MISSING: 'Enable the plugin that provides the service in oryx.config.ts.',
  ORYX_E_AGENT_NOT_FOUND: 'Create .oryxos/agents/<name>/AGENT.md, or pick one listed by `oryx agents`.',
  ORYX_E_AGENT_INVALID: 'Fix the file and field the message names (AGENT.md, a skill or a bootstrap file); frontmatter is plain YAML only.',
  ORYX_E_PROVIDER_NOT_FOUND: 'Set `provider:` in AGENT.md to a provider enabled in oryx.config.ts.',
  ORYX_E_SESSION_NOT_FOUND: 'List sessions with `oryx sessions`, or omit --session to start a new one.',
  ORYX_E_SESSION_AGENT_MISMATCH: 'Resume the session with the agent it belongs to, or start a new session.',
  ORYX_E_TOOL_SCHEMA: 'A tool\'s inputSchema is not a valid JSON Schema (the message names the tool and its plugin or server): fix the schema, or leave the tool out.',
  ORYX_E_TOOL_TIMEOUT: 'The tool ran past its time limit; raise timeoutMs or make the call smaller.',
  ORYX_E_SANDBOX_DENIED: 'Allow the action in the sandbox options of oryx.config.ts (or the agent sandbox: frontmatter).',
  ORYX_E_SANDBOX_ASK: 'The action needs a person\'s approval, which is asked before a tool call starts: declare it in the tool\'s actions(), or move it from an ask list to an allow list.',
  ORYX_E_LLM_FAILED: 'The model call failed; the message names provider, model and cause.',
  ORYX_E_RUN_ABORTED: 'The run was cancelled; the session keeps every step committed before the abort.',
  ORYX_E_RUN_NOT_CONTINUABLE: 'Only a run that stopped suspended (waiting for a person) can be continued, once: list runs with `oryx runs`, or send the session a new message instead.',
  ORYX_E_RUN_FAILED: 'The run failed outside the loop (its session could not be read or written): the message says why; `oryx doctor` checks the database.',
} as const;
