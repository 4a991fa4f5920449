import type { Services } from '@oryxos/contracts';
import { OryxError, type Provider } from '@oryxos/provider-spec';
import type { Door, StopRule, Tool, ToolProvider } from './types.ts';

/**
 * Providers by explicit name, tools by name, tool providers (MCP, sub-agents), named
 * services, stop rules and doors.
 * Filled during plugin setup, frozen once the kernel has started.
 */
export class Registry {
  readonly providers = new Map<string, Provider & { plugin?: string }>();
  readonly tools = new Map<string, Tool>();
  readonly toolProviders: (ToolProvider & { plugin?: string })[] = [];
  readonly services = new Map<string, { value: unknown; plugin?: string }>();
  readonly stopRules: (StopRule & { plugin?: string })[] = [];
  readonly doors = new Map<string, Door & { plugin?: string }>();
  private frozen = false;

  freeze(): void { this.frozen = true; }

  /** ORYX_E_REGISTRY_DUPLICATE when another plugin registered the name already. */
  private unique(map: Map<string, { plugin?: string }>, what: string, name: string, plugin: string | undefined, hint: string): void {
    const existing = map.get(name);
    if (existing) throw new OryxError('ORYX_E_REGISTRY_DUPLICATE', `${what} "${name}" is registered twice (by ${existing.plugin} and ${plugin})`, { hint });
  }

  private check(what: string, name: string): void {
    if (this.frozen) {
      throw new OryxError('ORYX_E_REGISTRY_FROZEN', `Cannot register ${what} "${name}": the kernel has already started`, {
        hint: 'Register providers, tools and services in setup(), not after start.',
      });
    }
  }

  addProvider(provider: Provider, plugin?: string): void {
    this.check('provider', provider.name);
    this.unique(this.providers, 'Provider', provider.name, plugin, 'Give one of them another name with its `name` option.');
    this.providers.set(provider.name, Object.assign(provider, { plugin }));
  }

  addTool(tool: Tool, plugin?: string): void {
    this.check('tool', tool.name);
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)) {
      throw new OryxError('ORYX_E_PLUGIN_INVALID', `Tool name "${tool.name}" (from ${plugin}) must match [a-zA-Z0-9_-]{1,64}`, {
        hint: 'Model APIs accept only letters, digits, _ and - in tool names.',
      });
    }
    this.unique(this.tools, 'Tool', tool.name, plugin, 'Rename one of the tools or disable one of the plugins.');
    this.tools.set(tool.name, { ...tool, plugin: tool.plugin ?? plugin });
  }

  addToolProvider(source: ToolProvider, plugin?: string): void {
    this.check('tool provider', source.name);
    this.toolProviders.push(Object.assign(source, { plugin }));
  }

  addStopRule(rule: StopRule, plugin?: string): void {
    this.check('stop rule', rule.name);
    this.stopRules.push({ ...rule, plugin });
  }

  addDoor(door: Door, plugin?: string): void {
    this.check('door', door.name);
    this.unique(this.doors, 'Door', door.name, plugin, 'Enable only one plugin that serves it.');
    this.doors.set(door.name, Object.assign(door, { plugin }));
  }

  addService<K extends keyof Services>(name: K, value: Services[K], plugin?: string): void {
    this.check('service', name);
    this.unique(this.services, 'Service', name, plugin, 'Enable only one plugin that provides it.');
    this.services.set(name, { value, plugin });
  }
}
