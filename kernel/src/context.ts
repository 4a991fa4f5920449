import type { Services } from '@oryxos/contracts';
import { OryxError, type Provider } from '@oryxos/provider-spec';
import type { HostInfo } from './kernel.ts';
import type { ResolvedConfig } from './config.ts';
import type { HookName, Hooks } from './hooks.ts';
import type { HookTap } from './plugin.ts';
import type { Secrets } from './secrets.ts';
import type { AgentDefinition, Answer, Door, Question, RunContext, RunInput, RunResult, StopRule, Tool, ToolProvider, ToolSourceStatus } from './types.ts';

/** A log line sink; the CLI prints warnings, tests collect them. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
}

/**
 * A hook as a plugin sees it: it can only tap, and only during setup; its taps carry the
 * plugin's name (in every error a tap throws) and run in `STAGE` order.
 *
 * @example
 * ctx.hooks.afterTool.tapPromise({ stage: STAGE.OBSERVE }, async (result, info) => result);
 */
export interface PluginHook<K extends HookName> {
  tapPromise(fn: HookTap<K>): void;
  tapPromise(options: { stage?: number }, fn: HookTap<K>): void;
}

/** Every kernel hook, tap-only, as {@link PluginContext.hooks} gives them. */
export type PluginHooks = { readonly [K in HookName]: PluginHook<K> };

/** How plugins (doors) run agents: the kernel's one run service, without its internals. */
export interface Runs {
  process(input: RunInput): Promise<RunResult>;
  continue(runId: string, options?: Pick<RunInput, 'signal' | 'stream' | 'onEvent' | 'origin'>): Promise<RunResult>;
  isRunning(sessionId: string): boolean;
  abortSession(sessionId: string, reason?: unknown): Promise<number>;
}

/** The agents of the workspace, read-only. */
export interface Agents {
  readonly agentsDir: string;
  names(): Promise<string[]>;
  list(): Promise<AgentDefinition[]>;
  load(name: string): Promise<AgentDefinition>;
}

/**
 * What a plugin's `setup` receives: its own name, options and logger, the hooks to tap, the
 * registries to fill, the services of other plugins, and what a door needs to run agents.
 * Starting or closing the kernel is not in it.
 *
 * @example
 * setup(ctx) {
 *   ctx.provide('notes', new Notes(ctx.config.workspaceDir));
 *   ctx.hooks.init.tapPromise(async () => { await ctx.service('database').migrate(ctx.name, MIGRATIONS); });
 * }
 */
export interface PluginContext<Options = unknown> {
  /** The plugin's name: its taps, tools and services are recorded under it. */
  readonly name: string;
  /** The plugin's own options (`Plugin.options`). */
  readonly options: Options;
  /** The resolved config: `root` (the folder of oryx.config.ts), `workspaceDir`, `file`. */
  readonly config: ResolvedConfig;
  /** The kernel's logger, each line prefixed with the plugin's name, secrets masked. */
  readonly log: Logger;
  readonly hooks: PluginHooks;
  readonly agents: Agents;
  /** How a door runs agents and continues suspended runs. */
  readonly runs: Runs;
  /** Values masked as `***` in everything OryxOS writes: register what you load from the environment. */
  readonly secrets: Secrets;
  /** True when the command only reads (`oryx sessions`, `oryx audit …`): the plugin must create no file. */
  readonly readOnly: boolean;
  /** True when the host serves requests (`oryx web`, `oryx serve`, an embedding program); false for a command that runs and exits. */
  readonly serving: boolean;
  /** The kernel's version. */
  readonly version: string;
  /** Who runs the kernel (the `oryx` CLI and its packages' versions), when the host says. */
  readonly host?: HostInfo;
  /** The enabled plugins set up so far, with their versions. */
  readonly plugins: { name: string; version: string }[];
  registerProvider(provider: Provider): void;
  registerTool(tool: Tool): void;
  /** Tools found at run time (MCP servers, sub-agents). */
  registerToolProvider(source: ToolProvider): void;
  /** A rule that can end a run short of an answer. */
  registerStopRule(rule: StopRule): void;
  /** A way in (a channel, a server); the host starts it with the others. */
  registerDoor(door: Door): void;
  /** Offers a service to other plugins; it must be listed in the plugin's `provides`. */
  provide<K extends keyof Services>(name: K, value: Services[K]): void;
  /** Another plugin's service; throws ORYX_E_SERVICE_MISSING naming what to enable. */
  service<K extends keyof Services>(name: K): Services[K];
  hasService(name: keyof Services): boolean;
  /** Which plugin provides a service (`kernel` for the built-in defaults). */
  serviceOwner(name: keyof Services): string | undefined;
  readonly providerNames: string[];
  /** A provider by name; throws ORYX_E_PROVIDER_NOT_FOUND listing the enabled ones. */
  provider(name: string): Provider;
  /** The provider an agent uses: its `provider:`, else the config default, else the only one. */
  providerFor(agent: AgentDefinition): Provider;
  /** Every registered tool, static and found, unfiltered. */
  allTools(agent: AgentDefinition): Promise<Tool[]>;
  /** The tools an agent's `tools:` allow-list lets it use (in a run: `run` given). */
  toolsFor(agent: AgentDefinition, run?: RunContext): Promise<Tool[]>;
  /** Health of every tool source (MCP servers). */
  toolSourceStatus(): Promise<(ToolSourceStatus & { provider: string })[]>;
  /** Asks the person behind the run's door; undefined when nobody can answer now. */
  askPerson(run: RunContext, question: Question): Promise<Answer | undefined>;
}

/** The kernel's hooks for one plugin: tap-only, every tap named after the plugin, refused once the kernel has started. */
export function pluginHooks(hooks: Hooks, name: string, started: () => boolean): PluginHooks {
  const entries = Object.entries(hooks).map(([key, hook]) => [key, Object.freeze({
    tapPromise(first: unknown, second?: unknown) {
      if (started()) {
        throw new OryxError('ORYX_E_REGISTRY_FROZEN', `Plugin "${name}" tapped hook "${key}" after the kernel started`, {
          hint: 'Tap hooks in setup(), not later: once the kernel has started its hooks are fixed.',
        });
      }
      const [options, fn] = second === undefined ? [{}, first] : [first, second];
      (hook as { tapPromise(options: object, fn: unknown): void }).tapPromise({ ...(options as object), name }, fn);
    },
  })]);
  return Object.freeze(Object.fromEntries(entries)) as PluginHooks;
}

/** A logger whose lines start with `name: `. */
export function namedLogger(log: Logger, name: string): Logger {
  return { debug: (m) => log.debug(`${name}: ${m}`), info: (m) => log.info(`${name}: ${m}`), warn: (m) => log.warn(`${name}: ${m}`) };
}
