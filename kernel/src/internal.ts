/**
 * @oryxos/kernel/internal: the loop's own parts, for the kernel's tests and benchmarks. Not
 * part of the plugin API: anything here may change in any release. Plugins use
 * `@oryxos/kernel` (their {@link PluginContext}) instead.
 */
export { runLoop, callModel, type LoopInput, type LoopResult } from './loop.ts';
export { ToolExecutor, DEFAULT_TOOL_TIMEOUT_MS } from './executor.ts';
export { buildPrompt, groupTurns, repairHistory, cutText, systemSections, promptChars, TokenEstimator } from './prompt.ts';
export { checkToolArgs } from './tool-schema.ts';
export { parseFrontmatter, assertMarkdownData, type Frontmatter } from './frontmatter.ts';
export { createHooks } from './hooks.ts';
export { kernelSatisfies, orderPlugins } from './plugin.ts';
export { Registry } from './registry.ts';
export { InMemorySessionStore } from './memory-store.ts';
export { FileCache, RECHECK_MS } from './file-cache.ts';
export { deadline, type Deadline } from './deadlines.ts';
