/**
 * @oryxos/kernel: the ReAct loop, its hooks, registries, the plugin loader, config and the agent
 * contract. A plugin gets a {@link PluginContext} in `setup`; a host (the `oryx` CLI, a test, a
 * program embedding OryxOS) creates, starts and closes a {@link Kernel}. Messages and providers
 * are `@oryxos/provider-spec`; the services plugins offer each other are `@oryxos/contracts`.
 */
export type {
  Tool, ToolResult, ToolContext, ToolProvider, ToolSource, ToolSourceStatus, ToolAnnotations, AgentDefinition, AgentSettings, SkillRef,
  Prompt, PromptSection, PromptReport, Question, Answer, Door, DoorCheck, StopReport, Stop, StopRule, BudgetLimit, BudgetUsed, RunEvent, RunInput, RunOrigin, RunResult, RunContext,
} from './types.ts';
export { STAGE, type Hooks, type HookName, type LLMCallInfo, type ToolCallInfo, type ToolResultInfo, type LimitInfo, type TrimInfo, type Suspend } from './hooks.ts';
export type { PluginContext, PluginHook, PluginHooks, Logger, Runs, Agents } from './context.ts';
export { Kernel, kernelVersion, type HostInfo, type KernelOptions } from './kernel.ts';
export { definePlugin, pluginPackage, type Plugin, type InlinePlugin, type PluginSetting, type PluginPackage, type HookTap } from './plugin.ts';
export { defineConfig, resolveConfig, asConfigError, type OryxConfig, type ResolvedConfig } from './config.ts';
export { DEFAULT_SETTINGS } from './agents.ts';
export { enforceAction, prepareExec } from './sandbox-gate.ts';
export { matchesToolPattern } from './registry.ts';
export { parseFrontmatter, type Frontmatter } from './frontmatter.ts';
export type { Secrets } from './secrets.ts';
