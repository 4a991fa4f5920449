/**
 * @oryxos/kernel: what plugins and hosts build on. A plugin gets a {@link PluginContext} in
 * `setup`; a host (the `oryx` CLI, a test, a program embedding OryxOS) creates, starts and
 * closes a {@link Kernel}. The loop's internals are in `@oryxos/kernel/internal`, the test
 * helpers in `@oryxos/kernel/testing`.
 */
export * from './types.ts';
export { OryxError, isOryxError, toOryxError, errorMessage, KERNEL_ERROR_CODES, type OryxErrorOptions } from './errors.ts';
export { STAGE, type Hooks, type HookName, type LLMCallInfo, type ToolCallInfo, type ToolResultInfo, type LimitInfo, type TrimInfo, type ApprovalInfo, type ApprovalAnswer } from './hooks.ts';
export { approvalRef } from './approval.ts';
export { type PluginContext, type PluginHook, type PluginHooks, type Logger } from './context.ts';
export { Kernel, kernelVersion, type HostInfo, type KernelOptions } from './kernel.ts';
export { definePlugin, pluginPackage, readPackageJson, type Plugin, type PluginPackage, type ServiceName } from './plugin.ts';
export { defineConfig, definedOptions, resolveConfig, validateOptions, asConfigError, type ArkTypeLike, type OptionsSpec, type OryxConfig, type ResolvedConfig } from './config.ts';
export { shape, isShape, issueText, Shape, OptionalShape, type ShapeIssue, type Infer, type NumberBounds, type ObjectOf, type Props } from '@oryxos/schema-kit';
export { AgentLoader, DEFAULT_SETTINGS, BOOTSTRAP_FILES, type AgentLoaderOptions } from './agents.ts';
export { AgentService } from './service.ts';
export { agentToolName, listedSubAgentTools } from './sub-agents.ts';
export { enforceAction, prepareExec, describeAction, type GateHost } from './sandbox-gate.ts';
export { compileToolSchema, uncheckedNote, MAX_SCHEMA_CHARS, type ArgsCheck, type CompiledSchema } from './tool-schema.ts';
export { Secrets, MASK } from './secrets.ts';
export { escapeControls } from './escape.ts';
export { matchesToolPattern } from './registry.ts';
export { closest, didYouMean } from './suggest.ts';
export { parsePlainYaml } from './plain-yaml.ts';
export { deadline, type Deadline } from './deadlines.ts';
