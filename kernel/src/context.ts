import type { AgentLoader } from './agents.ts';
import type { HostInfo } from './kernel.ts';
import type { ResolvedConfig } from './config.ts';
import type { HookName, Hooks } from './hooks.ts';
import type { Secrets } from './secrets.ts';
import type { AgentService } from './service.ts';
import type { AgentDefinition, Provider, Services, Tool, ToolProvider, ToolSourceStatus } from './types.ts';

/** A log line sink; the CLI prints warnings, tests collect them. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
}

type TapFn<H> = H extends { tapPromise(options: never, fn: infer F): void } ? F : never;

/**
 * A hook as a plugin sees it: it can only tap, and its taps carry the plugin's name (in every
 * error a tap throws) and run in {@link STAGE} order.
 *
 * @example
 * ctx.hooks.afterTool.tapPromise({ stage: STAGE.OBSERVE }, async (result, info) => result);
 */
export interface PluginHook<H> {
  tapPromise(fn: TapFn<H>): void;
  tapPromise(options: { stage?: number }, fn: TapFn<H>): void;
}

/** Every kernel hook, tap-only, as {@link PluginContext.hooks} gives them. */
export type PluginHooks = { readonly [K in HookName]: PluginHook<Hooks[K]> };

/**
 * What a plugin's `setup` receives: its own name, options and logger, the hooks to tap, the
 * registries to fill, the services of other plugins, and what the doors (web, scheduler) need
 * to run agents. Starting or closing the kernel is not in it.
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
  /** The plugin's own options ({@link Plugin.options}). */
  readonly options: Options;
  /** The resolved config: `root` (the folder of oryx.config.ts), `workspaceDir`, `file`. */
  readonly config: ResolvedConfig;
  /** The kernel's logger, each line prefixed with the plugin's name, secrets masked. */
  readonly log: Logger;
  readonly hooks: PluginHooks;
  /** Agents from `<workspace>/agents/<name>/AGENT.md`. */
  readonly agents: AgentLoader;
  /** The kernel's one AgentService: how a door (REST, scheduler) runs agents. */
  readonly runs: AgentService;
  /** Values masked as `***` in everything OryxOS writes: register what you load from the environment. */
  readonly secrets: Secrets;
  /**
   * True when the command only reads (`oryx sessions`, `oryx audit …`): the plugin must create
   * no file. The sqlite plugin opens no database file that is not there, the MCP plugin writes
   * no server log.
   */
  readonly readOnly: boolean;
  /**
   * True when the host serves requests (`oryx web`, a program embedding the kernel, the default);
   * false when it runs a command and exits (`oryx run`, `oryx chat`, every read). A plugin that
   * only serves (the web plugin) sets nothing up then, and loads nothing.
   */
  readonly serving: boolean;
  /** The kernel's version. */
  readonly version: string;
  /** Who runs the kernel (the `oryx` CLI and its packages' versions), when the host says. */
  readonly host?: HostInfo;
  /** The enabled plugins set up so far, with their versions. */
  readonly plugins: { name: string; version: string }[];
  registerProvider(provider: Provider): void;
  registerTool(tool: Tool): void;
  /** Tools discovered at run time (MCP servers). */
  registerToolProvider(source: ToolProvider): void;
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
  /** Every registered tool, static and discovered. */
  allTools(agent: AgentDefinition, signal?: AbortSignal): Promise<Tool[]>;
  /** The tools an agent's `tools:` allow-list lets it use. */
  toolsFor(agent: AgentDefinition, signal?: AbortSignal): Promise<Tool[]>;
  /** Health of every tool source (MCP servers). */
  toolSourceStatus(): Promise<(ToolSourceStatus & { provider: string })[]>;
}

/** The kernel's hooks for one plugin: tap-only, every tap named after the plugin. */
export function pluginHooks(hooks: Hooks, name: string): PluginHooks {
  const entries = Object.entries(hooks).map(([key, hook]) => [key, Object.freeze({
    tapPromise(first: unknown, second?: unknown) {
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
