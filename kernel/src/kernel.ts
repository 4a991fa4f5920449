import { AgentLoader } from './agents.ts';
import type { ResolvedConfig } from './config.ts';
import { OryxError, errorMessage, isOryxError } from './errors.ts';
import { escapeControls } from './escape.ts';
import { createHooks, type Hooks } from './hooks.ts';
import { InMemorySessionStore } from './memory-store.ts';
import { orderPlugins, type Plugin } from './plugin.ts';
import { Registry, matchesToolPattern } from './registry.ts';
import { Secrets } from './secrets.ts';
import { AgentService } from './service.ts';
import { didYouMean } from './suggest.ts';
import { checkToolSchemas } from './tool-schema.ts';
import type { AgentDefinition, Provider, Sandbox, Services, Tool, ToolProvider, ToolSourceStatus } from './types.ts';

/** The kernel's version; plugins declare the range they support (`kernel: '^1'`). */
export const KERNEL_VERSION = '1.0.0';

/** With no sandbox plugin, every action is denied. */
const denyAll: Sandbox = {
  async enforce(action) {
    return { allow: false, reason: `no sandbox plugin is enabled, so every ${action.kind} action is denied` };
  },
};

/** A log line sink; the CLI prints warnings, tests collect them. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
}

const silent: Logger = { debug() {}, info() {}, warn() {} };

export interface KernelOptions {
  config: ResolvedConfig;
  logger?: Logger;
}

/**
 * Owns the hooks, the registries and the plugin lifecycle. Plugins receive it in `setup`.
 *
 * @example
 * const kernel = new Kernel({ config: resolveConfig({ plugins: [scriptedProvider([...])] }, dir) });
 * await kernel.start();
 * const result = await kernel.runs.process({ agent: 'assistant', message: 'hi' });
 * await kernel.close();
 */
export class Kernel {
  readonly version = KERNEL_VERSION;
  readonly hooks: Hooks = createHooks();
  readonly config: ResolvedConfig;
  readonly agents: AgentLoader;
  /** Values masked as `***` wherever the kernel and the CLI write text; plugins register what they load. */
  readonly secrets = new Secrets();
  /** The logger given to the kernel; every message has its secrets masked and is one line of inert text. */
  readonly log: Logger;
  private readonly registry = new Registry();
  private state: 'new' | 'starting' | 'started' | 'closing' | 'closed' = 'new';
  private current?: string;
  private started: Plugin[] = [];
  private closers: { plugin: string; fn: () => Promise<void> }[] = [];
  private service_?: AgentService;

  constructor(options: KernelOptions) {
    this.config = options.config;
    const logger = options.logger ?? silent;
    const mask = (m: string) => escapeControls(this.secrets.mask(m), { oneLine: true });
    this.log = { debug: (m) => logger.debug(mask(m)), info: (m) => logger.info(mask(m)), warn: (m) => logger.warn(mask(m)) };
    this.agents = new AgentLoader(options.config.workspaceDir, {
      agentKeys: () => options.config.plugins.flatMap((p) => p.agentKeys ?? []),
    });
  }

  /**
   * The one AgentService of this kernel. Every door (CLI, REST, scheduler) runs agents through
   * it, so runs on a session are serialized whichever door they come from.
   */
  get runs(): AgentService {
    return (this.service_ ??= new AgentService(this));
  }

  /** Plugins in setup order, with their versions. */
  get plugins(): { name: string; version: string }[] {
    return this.started.map(({ name, version }) => ({ name, version }));
  }

  /** Checks and orders plugins, runs each `setup`, then `init`, then freezes the registries. */
  async start(): Promise<this> {
    if (this.state !== 'new') throw new OryxError('ORYX_E_REGISTRY_FROZEN', 'The kernel has already been started');
    this.state = 'starting';
    const ordered = orderPlugins(this.config.plugins, KERNEL_VERSION);
    try {
      for (const plugin of ordered) {
        this.current = plugin.name;
        try {
          await plugin.setup(this);
        } catch (error) {
          if (isOryxError(error) && error.code !== 'ORYX_E_PLUGIN_SETUP') throw error;
          throw new OryxError('ORYX_E_PLUGIN_SETUP', `Plugin "${plugin.name}" failed in setup: ${errorMessage(error)}`, {
            cause: error, hint: 'Check the options of that plugin in oryx.config.ts.',
          });
        } finally {
          this.current = undefined;
        }
        this.started.push(plugin);
      }
      await checkToolSchemas(this.registry.tools.values(), (m) => this.log.warn(m));
      await this.hooks.init.promise();
      this.registry.freeze();
      this.state = 'started';
    } catch (error) {
      await this.close().catch(() => {});
      throw error;
    }
    return this;
  }

  /** Runs the `close` taps in reverse setup order; every tap runs even if one fails. */
  async close(): Promise<void> {
    if (this.state === 'closed' || this.state === 'closing') return;
    this.state = 'closing';
    const errors: unknown[] = [];
    const taps = [...this.hooks.close.taps].reverse();
    for (const tap of taps) {
      try { await (tap.fn as () => Promise<void>)(); } catch (error) { errors.push(error); }
    }
    this.state = 'closed';
    if (errors.length) throw errors[0];
  }

  /** The name of the plugin whose setup is running, for naming taps and tools. */
  get pluginName(): string | undefined { return this.current; }

  registerProvider(provider: Provider): void { this.registry.addProvider(provider, this.current); }
  registerTool(tool: Tool): void { this.registry.addTool(tool, this.current); }
  registerToolProvider(source: ToolProvider): void { this.registry.addToolProvider(source, this.current); }

  /** Offers a named service to other plugins. */
  provide<K extends keyof Services>(name: K, value: Services[K]): void {
    this.registry.addService(name, value, this.current);
  }

  /** True when some plugin (or the kernel default) provides the service. */
  hasService(name: keyof Services): boolean {
    return this.registry.services.has(name) || name === 'sessions' || name === 'sandbox';
  }

  /** Another plugin's service; throws ORYX_E_SERVICE_MISSING naming what to enable. */
  service<K extends keyof Services>(name: K): Services[K] {
    const entry = this.registry.services.get(name);
    if (entry) return entry.value as Services[K];
    if (name === 'sessions') return this.provideDefault(name, new InMemorySessionStore() as unknown as Services[K]);
    if (name === 'sandbox') return denyAll as Services[K];
    throw new OryxError('ORYX_E_SERVICE_MISSING', `No plugin provides the "${String(name)}" service`, {
      hint: `Enable the plugin that provides "${String(name)}" in oryx.config.ts.`,
    });
  }

  private provideDefault<K extends keyof Services>(name: K, value: Services[K]): Services[K] {
    this.registry.services.set(name, { value, plugin: 'kernel' });
    return value;
  }

  /** Which plugin provides a service ('kernel' for the built-in defaults). */
  serviceOwner(name: keyof Services): string | undefined {
    return this.registry.services.get(name)?.plugin ?? (this.hasService(name) ? 'kernel' : undefined);
  }

  provider(name: string): Provider {
    const provider = this.registry.providers.get(name);
    if (provider) return provider;
    const known = [...this.registry.providers.keys()];
    throw new OryxError('ORYX_E_PROVIDER_NOT_FOUND', `No provider named "${name}"`, {
      hint: known.length ? `Enabled providers: ${known.join(', ')}.` : 'Enable a provider plugin (openai, ollama, replay) in oryx.config.ts.',
    });
  }

  get providerNames(): string[] { return [...this.registry.providers.keys()]; }

  /** The provider an agent uses: its `provider:`, else the config default, else the only one. */
  providerFor(agent: AgentDefinition): Provider {
    const name = agent.provider ?? this.config.defaultProvider;
    if (name) return this.provider(name);
    const names = this.providerNames;
    if (names.length === 1) return this.provider(names[0]!);
    throw new OryxError('ORYX_E_PROVIDER_NOT_FOUND', `Agent "${agent.name}" names no provider and ${names.length ? 'several are enabled' : 'none is enabled'}`, {
      hint: names.length ? `Set provider: to one of ${names.join(', ')} in ${agent.file}, or defaultProvider in oryx.config.ts.` : 'Enable a provider plugin in oryx.config.ts.',
    });
  }

  /** Every registered tool, static and discovered (tool providers), unfiltered. */
  async allTools(agent: AgentDefinition, signal?: AbortSignal): Promise<Tool[]> {
    const tools = [...this.registry.tools.values()];
    const discovered = await Promise.all(this.registry.toolProviders.map(async (source) => {
      try {
        return (await source.list({ agent, signal })).map((t) => ({ ...t, plugin: t.plugin ?? source.plugin }));
      } catch (error) {
        this.log.warn(`tool provider "${source.name}" failed to list tools: ${errorMessage(error)}`);
        return [];
      }
    }));
    return tools.concat(...discovered);
  }

  /** Health of every tool source (MCP servers): what is unavailable and why. */
  async toolSourceStatus(): Promise<(ToolSourceStatus & { provider: string })[]> {
    const all = await Promise.all(this.registry.toolProviders.map(async (p) =>
      ((await p.status?.()) ?? []).map((s) => ({ ...s, provider: p.name }))));
    return all.flat();
  }

  /**
   * The tools an agent may use: its `tools:` allow-list applied (`*` globs). A name no plugin
   * provides is an error with the closest one (a typo), unless a tool source that could
   * provide it (an MCP server) is down, which is only a warning.
   */
  async toolsFor(agent: AgentDefinition, signal?: AbortSignal): Promise<Tool[]> {
    const all = await this.allTools(agent, signal);
    const names = new Set(all.map((t) => t.name));
    const missing = agent.tools.filter((p) => !p.includes('*') && !names.has(p));
    if (missing.length) {
      const down = (await this.toolSourceStatus()).filter((s) => !s.ok).map((s) => `${s.name}__`);
      for (const name of missing) {
        if (down.some((prefix) => name.startsWith(prefix))) {
          this.log.warn(`agent "${agent.name}": tool "${name}" is unavailable (its server is down)`);
          continue;
        }
        throw new OryxError('ORYX_E_AGENT_INVALID', `${agent.file}: tool "${name}" is not provided by any enabled plugin${didYouMean(name, names)}`, {
          hint: `Fix the name in tools: of ${agent.file}, or enable the plugin that provides it (\`oryx tools\` lists what is there).`,
          data: { file: agent.file, field: 'tools', tool: name },
        });
      }
    }
    return all.filter((t) => agent.tools.some((p) => matchesToolPattern(t.name, p)));
  }
}
