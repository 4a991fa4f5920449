import path from 'node:path';
import type { AuditLog, ServiceName, Services } from '@oryxos/contracts';
import { OryxError, errorMessage, isOryxError, type Provider } from '@oryxos/provider-spec';
import { denyAllSandbox } from '@oryxos/sandbox-gate';
import { didYouMean, escapeControls, matchesToolPattern } from '@oryxos/schema-kit';
import { InMemorySessionStore } from '@oryxos/sessions-in-memory';
import { loopDetection } from '@oryxos/stop-rules';
import { AgentLoader } from './agents.ts';
import { asConfigError, type ResolvedConfig } from './config.ts';
import { namedLogger, pluginHooks, type Logger, type PluginContext, type Runs } from './context.ts';
import { createHooks, type Hooks } from './hooks.ts';
import { orderPlugins, readPackageJson, type Plugin } from './plugin.ts';
import { Registry } from './registry.ts';
import { Secrets } from './secrets.ts';
import { AgentService } from './service.ts';
import { checkToolSchemas } from './tool-schema.ts';
import type { AgentDefinition, Answer, Door, Question, RunContext, StopReport, StopRule, Tool, ToolSourceStatus } from './types.ts';

/** The kernel's version, from its package.json; plugins declare the range they support (`kernel: '^1'`). */
export function kernelVersion(): string {
  return readPackageJson(import.meta.url).version;
}

/** Services the kernel provides itself when no plugin does: a `requires` of them is always met. */
const BUILT_IN_SERVICES = ['sessions', 'sandbox'];

const silent: Logger = { debug() {}, info() {}, warn() {} };

/** How a host (the CLI, a test, an embedding program) creates a kernel. */
export interface KernelOptions {
  config: ResolvedConfig;
  logger?: Logger;
  /** A kernel for a command that only reads: plugins see `ctx.readOnly` and create no file. */
  readOnly?: boolean;
  /** Whether the host serves requests (plugins see `ctx.serving`). Default: true, or false with `readOnly`. */
  serving?: boolean;
  /** Who runs the kernel (the `oryx` CLI and its packages' versions), for what plugins report (`/api/info`). */
  host?: HostInfo;
}

/** The program that runs a kernel, and the versions of the packages it brings. */
export interface HostInfo {
  name: string;
  version: string;
  /** Package name → version, for every package of the installation. */
  packages?: Record<string, string>;
}

/**
 * Owns the hooks, the registries and the plugin lifecycle; the host that creates it starts and
 * closes it (and its doors). Each plugin's `setup` receives its own {@link PluginContext}, never
 * the kernel.
 *
 * @example
 * const kernel = await new Kernel({ config: resolveConfig({ plugins: [scriptedProvider([...])] }, dir) }).start();
 * const result = await kernel.runs.process({ agent: 'assistant', message: 'hi' });
 * await kernel.close();
 */
export class Kernel {
  readonly version = kernelVersion();
  readonly hooks: Hooks = createHooks();
  readonly config: ResolvedConfig;
  readonly agents: AgentLoader;
  /** Values masked as `***` wherever the kernel and the CLI write text; plugins register what they load. */
  readonly secrets = new Secrets();
  /** The logger given to the kernel; every message has its secrets masked and is one line of inert text. */
  readonly log: Logger;
  readonly readOnly: boolean;
  readonly serving: boolean;
  readonly host?: HostInfo;
  /** The one run service: every door runs agents through it, so runs on a session are serialized whichever door they come from. */
  readonly runs: AgentService = new AgentService(this);
  private readonly registry = new Registry();
  private state: 'new' | 'starting' | 'started' | 'closing' | 'closed' = 'new';
  private started: Plugin[] = [];
  private doorsStarted: Door[] = [];

  constructor(options: KernelOptions) {
    this.config = options.config;
    this.readOnly = options.readOnly ?? false;
    this.serving = options.serving ?? !this.readOnly;
    this.host = options.host;
    const logger = options.logger ?? silent;
    // Every line is one line of inert text: a message that quotes a server's or a model's text
    // cannot forge another log line or move a terminal's cursor.
    const mask = (m: string) => escapeControls(this.secrets.mask(m), { oneLine: true });
    this.log = { debug: (m) => logger.debug(mask(m)), info: (m) => logger.info(mask(m)), warn: (m) => logger.warn(mask(m)) };
    this.agents = new AgentLoader(options.config.workspaceDir, {
      projectDir: options.config.root,
      agentKeys: () => options.config.plugins.flatMap((p) => p.agentKeys ?? []),
      pluginSettings: () => options.config.plugins.flatMap((p) => Object.entries(p.settings ?? {})),
      settings: options.config.settings,
    });
    // Loop detection is every run's first stop rule; an agent turns it off with `loop_detection: false`.
    this.registry.addStopRule(loopDetection((run: RunContext) => run.agent.settings.loop_detection) as StopRule, 'kernel');
  }

  /** Plugins in setup order, with their versions. */
  get plugins(): { name: string; version: string }[] {
    return this.started.map(({ name, version }) => ({ name, version }));
  }

  /** Checks and orders plugins, runs each `setup`, then `init`, then freezes the registries. */
  async start(): Promise<this> {
    if (this.state !== 'new') throw new OryxError('ORYX_E_REGISTRY_FROZEN', 'The kernel has already been started');
    this.state = 'starting';
    const ordered = orderPlugins(this.config.plugins, this.version, BUILT_IN_SERVICES);
    try {
      for (const plugin of ordered) {
        try {
          await plugin.setup(this.contextOf(plugin));
        } catch (error) {
          // An option or environment variable the plugin checks in setup is a configuration error.
          if (isOryxError(error) && error.code !== 'ORYX_E_PLUGIN_SETUP') throw asConfigError(error, this.config.file ? path.basename(this.config.file) : 'oryx.config.ts', plugin.name);
          throw new OryxError('ORYX_E_PLUGIN_SETUP', `Plugin "${plugin.name}" failed in setup: ${errorMessage(error)}`, {
            cause: error, hint: 'Check the options of that plugin in oryx.config.ts.',
          });
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

  /** Stops the doors still open, then runs the `close` taps in reverse setup order; every tap runs even if one fails. */
  async close(): Promise<void> {
    if (this.state === 'closed' || this.state === 'closing') return;
    this.state = 'closing';
    const errors: unknown[] = [];
    await this.stopDoors().catch((error) => errors.push(error));
    for (const tap of [...this.hooks.close.taps].reverse()) {
      try { await (tap.fn as () => Promise<void>)(); } catch (error) { errors.push(error); }
    }
    this.state = 'closed';
    if (errors.length) throw errors[0];
  }

  /** The doors enabled plugins registered (the CLI, `web`, the scheduler, channels). */
  get doors(): Door[] { return [...this.registry.doors.values()]; }

  /** Starts the doors (every one, or those named), in registration order; a host calls it after {@link start}. */
  async startDoors(names?: string[]): Promise<void> {
    for (const door of this.doors) {
      if (names && !names.includes(door.name)) continue;
      if (this.doorsStarted.includes(door)) continue;
      await door.start?.();
      this.doorsStarted.push(door);
    }
  }

  /** Stops the started doors, last started first; runs going on get `graceMs` (each door's default otherwise). */
  async stopDoors(options: { graceMs?: number } = {}): Promise<Record<string, StopReport>> {
    const errors: unknown[] = [];
    const reports: Record<string, StopReport> = {};
    for (const door of this.doorsStarted.splice(0).reverse()) {
      try {
        const report = await door.stop?.(options);
        if (report) reports[door.name] = report;
      } catch (error) { errors.push(error); }
    }
    if (errors.length) throw errors[0];
    return reports;
  }

  /** Asks the person behind the door a run came through; undefined when that door cannot ask now (or there is none). */
  async askPerson(run: RunContext, question: Question): Promise<Answer | undefined> {
    const door = run.door ? this.registry.doors.get(run.door) : undefined;
    return door?.ask ? door.ask(question, run) : undefined;
  }

  /** Tells the door of a run that one of its tools is making progress. */
  doorProgress(run: RunContext, update: { toolCallId: string; message?: string; progress?: number; total?: number }): void {
    const door = run.door ? this.registry.doors.get(run.door) : undefined;
    try { door?.progress?.(run, update); } catch (error) { this.log.warn(`door ${run.door}: progress failed: ${errorMessage(error)}`); }
  }

  /** Every run's stop rules, loop detection first. */
  get stopRules(): readonly StopRule[] { return this.registry.stopRules; }

  /** What one plugin's `setup` sees: its name on everything it registers and taps. */
  private contextOf(plugin: Plugin): PluginContext {
    const { name } = plugin;
    const { registry } = this;
    const kernel = this;
    const runs: Runs = {
      process: (input) => this.runs.process(input),
      continue: (runId, options) => this.runs.continue(runId, options),
      isRunning: (sessionId) => this.runs.isRunning(sessionId),
      abortSession: (sessionId, reason) => this.runs.abortSession(sessionId, reason),
    };
    return Object.freeze({
      name, options: plugin.options, config: this.config, agents: this.agents, secrets: this.secrets, readOnly: this.readOnly,
      serving: this.serving, version: this.version, host: this.host, runs,
      log: namedLogger(this.log, name),
      hooks: pluginHooks(this.hooks, name, () => kernel.state !== 'starting'),
      get plugins() { return kernel.plugins; },
      get providerNames() { return kernel.providerNames; },
      registerProvider: (provider) => registry.addProvider(provider, name),
      registerTool: (tool) => registry.addTool(tool, name),
      registerToolProvider: (source) => registry.addToolProvider(source, name),
      registerStopRule: (rule) => registry.addStopRule(rule, name),
      registerDoor: (door) => registry.addDoor(door, name),
      provide<K extends keyof Services>(service: K, value: Services[K]) {
        if (!plugin.provides?.includes(service as ServiceName)) {
          throw new OryxError('ORYX_E_PLUGIN_INVALID', `Plugin "${name}" provides the "${String(service)}" service without declaring it`, {
            hint: `Add provides: ['${String(service)}'] to the plugin object, so the loader can order and check the plugins that require it.`,
          });
        }
        registry.addService(service, value, name);
      },
      service: <K extends keyof Services>(service: K) => this.service(service),
      hasService: (service: keyof Services) => this.hasService(service),
      serviceOwner: (service: keyof Services) => this.serviceOwner(service),
      provider: (provider: string) => this.provider(provider),
      providerFor: (agent: AgentDefinition) => this.providerFor(agent),
      allTools: (agent: AgentDefinition) => this.allTools(agent),
      toolsFor: (agent: AgentDefinition, run?: RunContext) => this.toolsFor(agent, run),
      toolSourceStatus: () => this.toolSourceStatus(),
      askPerson: (run: RunContext, question: Question) => this.askPerson(run, question),
    } satisfies PluginContext);
  }

  /** True when some plugin (or the kernel default) provides the service. */
  hasService(name: keyof Services): boolean {
    return this.registry.services.has(name) || BUILT_IN_SERVICES.includes(name);
  }

  /** Another plugin's service; throws ORYX_E_SERVICE_MISSING naming what to enable. */
  service<K extends keyof Services>(name: K): Services[K] {
    const entry = this.registry.services.get(name);
    if (entry) return entry.value as Services[K];
    if (name === 'sessions') {
      const store = new InMemorySessionStore() as unknown as Services[K];
      this.registry.services.set(name, { value: store, plugin: 'kernel' });
      return store;
    }
    if (name === 'sandbox') return denyAllSandbox(() => (this.registry.services.get('audit')?.value as AuditLog | undefined)) as Services[K];
    throw new OryxError('ORYX_E_SERVICE_MISSING', `No plugin provides the "${String(name)}" service`, {
      hint: `Enable the plugin that provides "${String(name)}" in oryx.config.ts.`,
    });
  }

  /** Which plugin provides a service ('kernel' for the built-in defaults). */
  serviceOwner(name: keyof Services): string | undefined {
    return this.registry.services.get(name)?.plugin ?? (this.hasService(name) ? 'kernel' : undefined);
  }

  provider(name: string): Provider {
    const provider = this.registry.providers.get(name);
    if (provider) return provider;
    const known = [...this.registry.providers.keys()];
    throw new OryxError('ORYX_E_PROVIDER_NOT_FOUND', `No provider named "${name}"${didYouMean(name, known)}`, {
      hint: known.length ? `Enabled providers: ${known.join(', ')}.` : 'Enable a provider plugin (openai, anthropic, ollama, replay) in oryx.config.ts.',
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

  /** Every registered tool, static and found by tool providers (listed for `run` when given), unfiltered. */
  async allTools(agent: AgentDefinition, run?: RunContext): Promise<Tool[]> {
    const { filtered, own } = await this.listTools(agent, run);
    return [...filtered, ...own];
  }

  /** The static tools and the tool providers', apart: those the `tools:` allow-list filters, and those the agent chose by a key of its own. */
  private async listTools(agent: AgentDefinition, run?: RunContext): Promise<{ filtered: Tool[]; own: Tool[] }> {
    const out = { filtered: [...this.registry.tools.values()], own: [] as Tool[] };
    await Promise.all(this.registry.toolProviders.map(async (source) => {
      try {
        const tools = await source.list({ agent, ...(run ? { run, signal: run.signal } : {}) });
        out[source.ownList ? 'own' : 'filtered'].push(...tools.map((t) => ({ ...t, plugin: t.plugin ?? source.plugin })));
      } catch (error) {
        // A source that refuses the agent itself (a sub-agent cycle) is the agent's error, not a warning.
        if (isOryxError(error) && error.code.startsWith('ORYX_E_AGENT_')) throw error;
        this.log.warn(`tool provider "${source.name}" failed to list tools: ${errorMessage(error)}`);
      }
    }));
    return out;
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
  async toolsFor(agent: AgentDefinition, run?: RunContext): Promise<Tool[]> {
    const { filtered, own } = await this.listTools(agent, run);
    const names = new Set([...filtered, ...own].map((t) => t.name));
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
    return [...filtered.filter((t) => agent.tools.some((p) => matchesToolPattern(t.name, p))), ...own];
  }
}
