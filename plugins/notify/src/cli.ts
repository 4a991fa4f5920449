import type { Kernel } from '@oryxos/kernel';
import { notifyError } from './errors.ts';
import type { NotifyService } from '@oryxos/contracts';
import './index.ts';

/** The notify service for a command; ORYX_E_NOTIFY_NOT_ENABLED without the plugin. */
export function notifierOf(kernel: Kernel): NotifyService {
  if (!kernel.hasService('notify')) throw notifyError('ORYX_E_NOTIFY_NOT_ENABLED', 'The notify plugin is not enabled in oryx.config.ts');
  return kernel.service('notify');
}
