/**
 * @oryxos/plugin-kit: helpers for writing OryxOS plugins, for third parties as for the
 * plugins in this repository. Typed tools (`defineTool`: one argument shape gives both the JSON
 * Schema the model sees and the check of its arguments), path and executable resolution that
 * the sandbox and the tools share (both must reach the same file), the minimal environment
 * of a child process, secrets read from the environment (`env()`, `readEnv`: registered so
 * they are masked), whether a process still runs, and who holds a claim row (doors that take
 * each message once across processes).
 *
 * @example
 * import { defineTool } from '@oryxos/plugin-kit';
 */
export { defineTool, stringRecord, type ArgsOf, type ToolArgs, type ToolDefinition } from './define-tool.ts';
export { absolutePath, canonicalPath, resolveExecutable, atomicTempPath, atomicTempTarget } from './paths.ts';
export { MINIMAL_ENV, minimalEnv, env, isEnvRef, readEnv, type EnvRef, type SecretSink } from './env.ts';
export { processAlive } from './process.ts';
export { claimOwnerId, claimLiveness } from './claims.ts';
// What a plugin author needs besides the kernel, from one package: option shapes and their
// check, did-you-mean, terminal escaping, action descriptions, and the error type.
export { shape, validateOptions, didYouMean, closest, escapeControls, describeAction, type Infer } from '@oryxos/schema-kit';
export { OryxError, isOryxError, errorMessage } from '@oryxos/provider-spec';
// The sandbox gate: an action a plugin takes outside a tool call, a process it starts.
export { enforceAction, prepareExec, type GateHost } from '@oryxos/sandbox-gate';
