import { shape as s, validateOptions } from '@oryxos/schema-kit';
import type { EngineOptions } from './engine.ts';
import { schedulerError } from './errors.ts';
import { parseTask, type TaskDefinition, type TaskInput } from './task.ts';

/** Options of {@link scheduler}. */
export interface SchedulerOptions {
  /** Tasks declared in the config; stored (and checked) when the scheduler starts. */
  tasks?: TaskInput[];
  /** How long runs going on may finish when the scheduler stops (SIGINT/SIGTERM). Default 30000. */
  graceMs?: number;
  /** An execution whose process on another host has not renewed it for this long counts as interrupted. Default 30000. */
  leaseMs?: number;
  /** How often a running scheduler picks up tasks added, changed or removed by other processes. Default 5000. */
  refreshMs?: number;
}

export interface ResolvedSchedulerOptions extends EngineOptions {
  tasks: TaskDefinition[];
}

export const optionsShape = s.object({
  tasks: s.array(s.unknown()).optional(),
  graceMs: s.integer({ min: 0 }).optional(),
  leaseMs: s.integer({ min: 1000 }).optional(),
  refreshMs: s.integer({ min: 100 }).optional(),
});

/**
 * Validates the factory's options at once: the error names the field; a task's problem has
 * the task's own code (ORYX_E_SCHEDULER_BAD_CRON…) and names the task.
 *
 * @example
 * resolveOptions({ tasks: [{ name: 'n', agent: 'a', message: 'm', every: '500ms' }] }); // throws ORYX_E_SCHEDULER_BAD_EVERY
 */
export function resolveOptions(raw: unknown): ResolvedSchedulerOptions {
  const o = validateOptions(optionsShape, raw, {
    plugin: 'scheduler', code: 'ORYX_E_SCHEDULER_OPTIONS', example: "scheduler({ tasks: [{ name: 'daily', agent: 'assistant', message: 'Report.', cron: '0 8 * * *' }] })",
  }) as Omit<SchedulerOptions, 'tasks'> & { tasks?: unknown[] };
  const tasks = (o.tasks ?? []).map((t, i) => parseTask(t, `scheduler(): tasks[${i}]`));
  const seen = new Set<string>();
  for (const t of tasks) {
    if (seen.has(t.name)) throw schedulerError('ORYX_E_SCHEDULER_DUPLICATE', `scheduler(): two tasks are named "${t.name}"`);
    seen.add(t.name);
  }
  return {
    tasks, graceMs: o.graceMs ?? 30_000, leaseMs: o.leaseMs ?? 30_000, refreshMs: o.refreshMs ?? 5_000,
  };
}
