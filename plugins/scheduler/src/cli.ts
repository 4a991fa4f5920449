import type { Kernel } from '@oryxos/kernel';
import { schedulerError } from './errors.ts';
import type { ExecutionRow } from './queries.ts';
import type { SchedulerService } from '@oryxos/contracts';
import './index.ts';

/** The scheduler service for a command; ORYX_E_SCHEDULER_NOT_ENABLED without the plugin. */
export function schedulerOf(kernel: Kernel): SchedulerService {
  if (!kernel.hasService('scheduler')) throw schedulerError('ORYX_E_SCHEDULER_NOT_ENABLED', 'The scheduler plugin is not enabled in oryx.config.ts');
  return kernel.service('scheduler');
}

/** `2024-05-01T12:00:00.000Z` → `2024-05-01 12:00:00`, for tables. */
export function shortTime(iso: string | null | undefined): string {
  return iso ? iso.replace('T', ' ').slice(0, 19) : '';
}

/** An execution in one line for people. */
export function describeExecution(e: ExecutionRow): string {
  const parts = [`${e.task} slot ${e.slot}: ${e.status}`];
  if (e.error_code) parts.push(`${e.error_code}: ${e.error}`);
  if (e.session_id) parts.push(`session ${e.session_id}`);
  if (e.notify_status) parts.push(`mail ${e.notify_status}`);
  return parts.join(' · ');
}
