import { isOryxError } from '@oryxos/provider-spec';
import type { PluginContext } from '@oryxos/kernel';
import { shape as s } from '@oryxos/schema-kit';
import type { Context } from 'hono';
import { errorBody, webError } from './errors.ts';
import { identityOf } from './principal.ts';
import type { WebEnv } from './request-log.ts';
import type { RouteTable } from './routes.ts';
import { ErrorResponse, closed, limit, open, orNull } from './schemas.ts';
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

/** The shapes of these routes. */
function taskTypes() {
  const str = s.string;
  const TaskBody = closed({
    name: str({ min: 1 }),
    agent: str({ min: 1 }),
    message: str({ min: 1 }),
    cron: str().optional(),
    every: s.union(str(), s.number()).optional(),
    at: str().optional(),
    timezone: str().optional(),
    session: s.literal('new', 'task').optional(),
    notify: str().optional(),
    enabled: s.boolean().optional(),
    timeoutMs: s.integer({ min: 1000 }).optional(),
    overlap: s.literal('skip', 'queue').optional(),
    catchUp: s.literal('latest', 'none', 'all').optional(),
  });

  const Task = open({
    name: str(), agent: str(), message: str(), schedule: str(), cron: str().optional(), every: str().optional(), everyMs: s.number().optional(),
    at: str().optional(), timezone: str().optional(), session: s.literal('new', 'task'), sessionId: str().optional(), notify: str().optional(), enabled: s.boolean(),
    timeoutMs: s.number(), overlap: s.literal('skip', 'queue'), catchUp: s.literal('latest', 'none', 'all'), source: s.literal('config', 'runtime'), next: str().optional(),
    last: open({ slot: str(), status: str(), finishedAt: str().optional(), errorCode: str().optional() }).optional(), createdAt: str().optional(), updatedAt: str().optional(),
  });

  const executionStatus = s.literal('running', 'queued', 'ok', 'error', 'skipped', 'timeout', 'missed', 'waiting');
  const Execution = open({
    id: s.number(), task: str(), slot: str(), status: executionStatus,
    firedBy: s.literal('schedule', 'catch-up', 'manual'), owner: orNull(str()), startedAt: orNull(str()), finishedAt: orNull(str()),
    durationMs: orNull(s.number()), sessionId: orNull(str()), runId: orNull(str()), stopReason: orNull(str()), answer: orNull(str()),
    errorCode: orNull(str()), error: orNull(str()), iterations: orNull(s.number()), inputTokens: orNull(s.number()), outputTokens: orNull(s.number()),
    notifyStatus: orNull(str()), notificationId: orNull(s.number()),
  });

  const ExecutionsQuery = open({ limit: limit(1000).optional(), status: executionStatus.optional() });
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
    responses: { 200: { description: 'The tasks', schema: open({ items: s.array(Task) }) }, 401: err('Missing or wrong token'), 403: forbidden },
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
      200: { description: 'The executions', schema: open({ task: s.string(), items: s.array(Execution) }) },
      400: err('Bad query parameter'), 401: err('Missing or wrong token'), 403: forbidden, 404: err('No such task'),
    },
  }, async (c, { query }) => guarded(async () => {
    const name = c.req.param('name')!;
    const rows = await scheduler.executions(name, { limit: query.limit ?? 50, status: query.status });
    return c.json(listJson(rows.map((r) => camelKeys(r as object)), undefined, { task: name }));
  })(c));
}
