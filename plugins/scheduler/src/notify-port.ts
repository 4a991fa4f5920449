import type { NotifyService } from '@oryxos/contracts';
import type { PluginContext } from '@oryxos/kernel';

/** The notify service when a plugin provides it. */
export function notifyPort(kernel: PluginContext): NotifyService | undefined {
  return kernel.hasService('notify') ? kernel.service('notify') : undefined;
}
