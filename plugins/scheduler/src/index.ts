/**
 * @oryxos/plugin-scheduler: agents run on cron, interval or date slots, fired by Bree, each
 * slot exactly once across every process sharing the database, every result recorded in
 * `task_executions` and sent to the task's notify channel.
 *
 * @example
 * import scheduler from '@oryxos/plugin-scheduler';
 * export default defineConfig({ plugins: [sqlite(), scheduler({ tasks: [{ name: 'hourly', agent: 'assistant', message: 'Check.', every: '1h' }] })] });
 */
import type { TaskScheduler } from './service.ts';

export { default, default as scheduler } from './plugin.ts';
export { ERROR_CODES, type SchedulerErrorCode } from './errors.ts';
export { resolveOptions, type SchedulerOptions, type ResolvedSchedulerOptions } from './options.ts';
export { MIGRATIONS, OWNER } from './migrations.ts';
export { parseTask, TASK_NAME, DEFAULT_TIMEOUT_MS, type TaskInput, type TaskDefinition, type SessionMode, type Overlap, type CatchUp } from './task.ts';
export { parseEvery, formatEvery, nextSlot, slotsBetween, describeSchedule, MIN_EVERY_MS, type Schedule } from './schedule.ts';
export { TaskScheduler } from './service.ts';
export type { StopReport } from './engine.ts';
export type { TaskInfo } from './rows.ts';
export type { ExecutionRow, ExecutionStatus, FiredBy, TaskRow } from './queries.ts';

