import { isOryxError } from '@oryxos/provider-spec';
import type { PluginContext } from '@oryxos/kernel';
import { type } from 'arktype';
import type { Context } from 'hono';
import { errorBody, webError } from './errors.ts';
import { identityOf } from './principal.ts';
import type { WebEnv } from './request-log.ts';
import type { RouteTable } from './routes.ts';
import { ErrorResponse } from './schemas.ts';
import { camelKeys, listJson } from '@oryxos/command-kit';

/**
 * What the task routes and `oryx web` need from the `scheduler` service (the scheduler plugin
 * provides it). Declared here by shape: the web plugin never imports the scheduler package.
 */
export interface SchedulerPort {
  list(): Promise<unknown[]>;
  add(input: unknown): Promise<{ name: string }>;
  remove(name: string): Promise<void>;
  executions(name: string, options: { limit?: number; status?: string }): Promise<unknown[]>;
  start(): Promise<void>;
  stop(options?: { graceMs?: number }): Promise<{ finished: number; aborted: number }>;
  readonly inFlight: number;
}

/** The scheduler service, when a plugin provides it. */
export function schedulerOf(kernel: Pick<PluginContext, 'service' | 'hasService'>): SchedulerPort | undefined {
  const name = 'scheduler' as Parameters<PluginContext['hasService']>[0];
  return kernel.hasService(name) ? kernel.service(name) as unknown as SchedulerPort : undefined;
}

/** The types of these routes, built only when they are registered (a scheduler is enabled). */
function taskTypes() {
  const TaskBody = type({
    name: 'string > 0',
    agent: 'string > 0',
    message: 'string > 0',
    'cron?': 'string',
    'every?': 'string | number',
    'at?': 'string',
    'timezone?': 'string',
    'session?': "'new' | 'task'",
    'notify?': 'string',
    'enabled?': 'boolean',
    'timeoutMs?': 'number.integer >= 1000',
    'overlap?': "'skip' | 'queue'",
    'catchUp?': "'latest' | 'none' | 'all'",
    '+': 'reject',
  });

  const Task = type({
    name: 'string', agent: 'string', message: 'string', schedule: 'string', 'cron?': 'string', 'every?': 'string', 'everyMs?': 'number',
    'at?': 'string', 'timezone?': 'string', session: "'new' | 'task'", 'sessionId?': 'string', 'notify?': 'string', enabled: 'boolean',
    timeoutMs: 'number', overlap: "'skip' | 'queue'", catchUp: "'latest' | 'none' | 'all'", source: "'config' | 'runtime'", 'next?': 'string',
    'last?': { slot: 'string', status: 'string', 'finishedAt?': 'string', 'errorCode?': 'string' }, 'createdAt?': 'string', 'updatedAt?': 'string',
  });

  const Execution = type({
    id: 'number', task: 'string', slot: 'string', status: "'running' | 'queued' | 'ok' | 'error' | 'skipped' | 'timeout' | 'missed' | 'waiting'",
    firedBy: "'schedule' | 'catch-up' | 'manual'", owner: 'string | null', startedAt: 'string | null', finishedAt: 'string | null',
    durationMs: 'number | null', sessionId: 'string | null', runId: 'string | null', stopReason: 'string | null', answer: 'string | null',
    errorCode: 'string | null', error: 'string | null', iterations: 'number | null', inputTokens: 'number | null', outputTokens: 'number | null',
    notifyStatus: 'string | null', notificationId: 'number | null', '+': 'ignore',
  });

  const ExecutionsQuery = type({
    'limit?': type('string.integer.parse').pipe(type('1 <= number.integer <= 1000')),
    'status?': "'running' | 'queued' | 'ok' | 'error' | 'skipped' | 'timeout' | 'missed' | 'waiting'",
  });
  return { TaskBody, Task, Execution, ExecutionsQuery };
}

/** HTTP status of the scheduler's codes (others go through the web plugin's own mapping). */
const STATUS: Record<string, number> = {
  ORYX_E_SCHEDULER_BAD_TASK: 400, ORYX_E_SCHEDULER_BAD_CRON: 400, ORYX_E_SCHEDULER_BAD_EVERY: 400, ORYX_E_SCHEDULER_BAD_AT: 400,
  ORYX_E_SCHEDULER_AT_PAST: 400, ORYX_E_SCHEDULER_BAD_TIMEZONE: 400, ORYX_E_SCHEDULER_UNKNOWN_AGENT: 400, ORYX_E_SCHEDULER_UNKNOWN_CHANNEL: 400,
  ORYX_E_SCHEDULER_DUPLICATE: 409, ORYX_E_SCHEDULER_CONFIG_TASK: 409, ORYX_E_SCHEDULER_NOT_FOUND: 404,
};

const err = (description: string) => ({ description, schema: ErrorResponse });

/**
 * `/api/tasks`: the scheduler's tasks and their executions. Scheduled runs act for no user, so
 * only a token that may name users (the server's own) may see or change them.
 */
export function registerTaskRoutes(routes: RouteTable, scheduler: SchedulerPort): void {
  const { TaskBody, Task, Execution, ExecutionsQuery } = taskTypes();
  const guarded = (handler: (c: Context<WebEnv>) => Promise<Response>) => async (c: Context<WebEnv>) => {
    if (!identityOf(c).namesUsers) throw webError('ORYX_E_WEB_USER_FORBIDDEN', 'Scheduled tasks run for the server\'s operator; this token may not see or change them');
    try {
      return await handler(c);
    } catch (error) {
      const status = isOryxError(error) ? STATUS[error.code] : undefined;
      if (status) return c.json(errorBody(error as never), status as 400);
      throw error;
    }
  };
  const forbidden = err('A token that may act only for its own user');

  routes.add({
    method: 'get', path: '/api/tasks', tag: 'tasks',
    summary: 'Every scheduled task (from the config and added at run time): schedule, agent, next slot, last result.',
    responses: { 200: { description: 'The tasks', schema: type({ items: Task.array() }) }, 401: err('Missing or wrong token'), 403: forbidden },
  }, guarded(async (c) => c.json(listJson(await scheduler.list()))));

  routes.add({
    method: 'post', path: '/api/tasks', tag: 'tasks', body: TaskBody,
    summary: 'Adds a task: exactly one of cron, every (ms or "30s", "5m"…) or at (ISO date with a time zone).',
    description: 'Everything is checked now, never at fire time: the schedule (ORYX_E_SCHEDULER_BAD_CRON, _BAD_EVERY, _BAD_AT, _AT_PAST, '
      + '_BAD_TIMEZONE), the agent (_UNKNOWN_AGENT), the notify channel (_UNKNOWN_CHANNEL), the name (_DUPLICATE, 409). '
      + 'A running scheduler picks the task up at once in this server, within its refreshMs elsewhere.',
    responses: {
      201: { description: 'The task (also in the Location header)', schema: Task },
      400: err('A bad field, schedule, agent or channel'), 401: err('Missing or wrong token'), 403: forbidden, 409: err('The name is in use'),
    },
  }, async (c, { body }) => guarded(async () => {
    const task = await scheduler.add(body);
    c.header('location', `/api/tasks/${encodeURIComponent(task.name)}`);
    return c.json(task, 201);
  })(c));

  routes.add({
    method: 'delete', path: '/api/tasks/:name', tag: 'tasks', params: { name: 'Task name' },
    summary: 'Removes a task added at run time; its executions are kept. A task declared in oryx.config.ts is changed there (409).',
    responses: { 204: { description: 'Removed' }, 401: err('Missing or wrong token'), 403: forbidden, 404: err('No such task'), 409: err('Declared in oryx.config.ts') },
  }, guarded(async (c) => {
    await scheduler.remove(c.req.param('name')!);
    return c.body(null, 204);
  }));

  routes.add({
    method: 'get', path: '/api/tasks/:name/executions', tag: 'tasks', params: { name: 'Task name' }, query: ExecutionsQuery,
    summary: 'A task\'s executions, newest slot first: status, session, run id, answer excerpt, error, what became of the result mail.',
    responses: {
      200: { description: 'The executions', schema: type({ task: 'string', items: Execution.array() }) },
      400: err('Bad query parameter'), 401: err('Missing or wrong token'), 403: forbidden, 404: err('No such task'),
    },
  }, async (c, { query }) => guarded(async () => {
    const name = c.req.param('name')!;
    const rows = await scheduler.executions(name, { limit: query.limit ?? 50, status: query.status });
    return c.json(listJson(rows.map((r) => camelKeys(r as object)), undefined, { task: name }));
  })(c));
}
