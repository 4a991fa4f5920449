import type { PluginContext } from '@oryxos/kernel';

/**
 * What the scheduler needs from the `notify` service (the notify plugin provides it). Declared
 * here by shape, so this package never imports the notify package.
 */
export interface NotifyPort {
  hasChannel(name: string): Promise<boolean>;
  send(message: { channel: string; subject: string; body: string; origin: string; sessionId?: string; runId?: string }):
    Promise<{ id?: number; status: 'sent' | 'failed' | 'denied'; error?: { code: string; message: string } }>;
}

/** The notify service when a plugin provides it. */
export function notifyPort(kernel: PluginContext): NotifyPort | undefined {
  const name = 'notify' as Parameters<PluginContext['hasService']>[0];
  return kernel.hasService(name) ? kernel.service(name) as unknown as NotifyPort : undefined;
}
