import type { SchedulerService } from '@oryxos/contracts';
import type { PluginContext } from '@oryxos/kernel';
import type { SchedulerEngine, StopReport } from './engine.ts';
import { schedulerError } from './errors.ts';
import { notifyPort } from './notify-port.ts';
import type { ExecutionRow, TaskRow, TaskStore } from './queries.ts';
import { definitionOf, infoOf, type TaskInfo } from './rows.ts';
import { parseTask, sameSchedule, type TaskDefinition } from './task.ts';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The `scheduler` service: tasks (from the config and added at run time, all stored in
 * `scheduled_tasks`), their executions, and the engine that fires them. Only `start()` makes it
 * tick — `oryx schedule start` and `oryx web` call it; other commands never do.
 *
 * @example
 * const tasks = kernel.service('scheduler');
 * await tasks.add({ name: 'hourly', agent: 'assistant', message: 'Check the inbox.', every: '1h', notify: 'ops' });
 * await tasks.start();
 */
export class TaskScheduler implements SchedulerService {
  private configSynced?: Promise<void>;
  private readonly configNames: Set<string>;

  constructor(
    private readonly kernel: PluginContext,
    private readonly store: TaskStore,
    private readonly engine: SchedulerEngine,
    private readonly configTasks: readonly TaskDefinition[],
  ) {
    this.configNames = new Set(configTasks.map((t) => t.name));
  }

  /** Whether this process is ticking. */
  get running(): boolean { return this.engine.started; }

  /** Runs going on (or queued) in this process. */
  get inFlight(): number { return this.engine.inFlight; }

  /** Every task, by name: the stored ones and the config's (as declared, even before the scheduler first started). */
  async list(): Promise<TaskInfo[]> {
    const rows = new Map((await this.store.listTasks()).map((r) => [r.name, r]));
    const last = new Map((await this.store.latestExecutions()).map((e) => [e.task, e]));
    const infos = new Map<string, TaskInfo>();
    for (const row of rows.values()) infos.set(row.name, infoOf(definitionOf(row), row.source, row, last.get(row.name)));
    for (const def of this.configTasks) infos.set(def.name, infoOf(def, 'config', rows.get(def.name), last.get(def.name)));
    return [...infos.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** One task; ORYX_E_SCHEDULER_NOT_FOUND when there is none of that name. */
  async get(name: string): Promise<TaskInfo> {
    const found = (await this.list()).find((t) => t.name === name);
    if (!found) throw notFound(name);
    return found;
  }

  /**
   * Adds a task at run time. Everything is checked now, never at fire time: the fields and
   * schedule, the agent, the notify channel, an `at` that has passed, a name in use.
   */
  async add(input: unknown): Promise<TaskInfo> {
    const def = parseTask(input);
    if (this.configNames.has(def.name)) {
      throw schedulerError('ORYX_E_SCHEDULER_DUPLICATE', `task "${def.name}" is declared in oryx.config.ts; pick another name for a task added at run time`);
    }
    await this.checkReferences(def, `task "${def.name}"`);
    this.checkAtFuture(def, `task "${def.name}"`);
    if (!await this.store.insertTask(def, 'runtime', iso(Date.now()))) {
      throw schedulerError('ORYX_E_SCHEDULER_DUPLICATE', `task "${def.name}" already exists`);
    }
    await this.engine.taskChanged(def.name);
    return this.get(def.name);
  }

  /** Removes a task added at run time; its executions stay in `task_executions`. */
  async remove(name: string): Promise<void> {
    this.refuseConfigTask(name, 'remove');
    if (!await this.store.deleteTask(name)) throw notFound(name);
    await this.engine.taskChanged(name);
  }

  /** Enables or disables a task added at run time. Enabling does not count the slots it slept through as missed. */
  async setEnabled(name: string, enabled: boolean): Promise<TaskInfo> {
    this.refuseConfigTask(name, enabled ? 'enable' : 'disable');
    const row = await this.store.getTask(name);
    if (!row) throw notFound(name);
    if (enabled) await this.checkReferences(definitionOf(row), `task "${name}"`);
    await this.store.setEnabled(name, enabled, iso(Date.now()));
    await this.engine.taskChanged(name);
    return this.get(name);
  }

  /** Runs a task now, recorded like a scheduled run (`fired_by: manual`), and resolves to its execution once done. */
  async run(name: string): Promise<ExecutionRow> {
    await this.syncConfig();
    const row = await this.store.getTask(name);
    if (!row) throw notFound(name);
    const def = definitionOf(row);
    await this.checkReferences(def, `task "${name}"`);
    return this.engine.runNow(def);
  }

  /** A task's executions, newest slot first. Those of a removed task are still there. */
  async executions(name: string, options: { limit?: number; status?: string } = {}): Promise<ExecutionRow[]> {
    const rows = await this.store.executions(name, options);
    if (!rows.length && !this.configNames.has(name) && !await this.store.getTask(name)) throw notFound(name);
    return rows;
  }

  /** Stores the config's tasks (checking their agents and channels), then starts ticking. */
  async start(): Promise<void> {
    await this.syncConfig();
    await this.engine.start();
  }

  /** Stops ticking; running runs get `graceMs` to finish (default: the plugin's graceMs). */
  stop(options: { graceMs?: number } = {}): Promise<StopReport> {
    return this.engine.stop(options);
  }

  /**
   * Upserts the config's tasks (once per process): new ones are checked like `add`; a changed
   * one is rewritten (a new schedule counts its slots from now); a config task no longer in
   * the config is removed. A run-time task of the same name gives way, with a warning.
   */
  private syncConfig(): Promise<void> {
    this.configSynced ??= this.doSyncConfig().catch((error) => {
      this.configSynced = undefined;
      throw error;
    });
    return this.configSynced;
  }

  private async doSyncConfig(): Promise<void> {
    const now = Date.now();
    const stored = new Map<string, TaskRow>((await this.store.listTasks()).map((r) => [r.name, r]));
    for (const def of this.configTasks) {
      const where = `scheduler(): task "${def.name}" in oryx.config.ts`;
      const row = stored.get(def.name);
      const old = row && definitionOf(row);
      if (old && row.source === 'config' && JSON.stringify(old) === JSON.stringify(def)) continue;
      await this.checkReferences(def, where);
      if (!old || !sameSchedule(old, def)) this.checkAtFuture(def, where);
      if (!row) {
        await this.store.insertTask(def, 'config', iso(now));
        continue;
      }
      if (row.source !== 'config') this.kernel.log.warn(`the task "${def.name}" added at run time is replaced by the one declared in oryx.config.ts`);
      const restart = !sameSchedule(old!, def) || (!old!.enabled && def.enabled);
      await this.store.updateTask(def, 'config', iso(now), restart ? iso(now) : undefined);
    }
    for (const row of stored.values()) {
      if (row.source === 'config' && !this.configNames.has(row.name)) {
        await this.store.deleteTask(row.name);
        this.kernel.log.info(`task "${row.name}" is no longer in oryx.config.ts and was removed (its executions are kept)`);
      }
    }
  }

  private async checkReferences(def: TaskDefinition, where: string): Promise<void> {
    const agents = await this.kernel.agents.names();
    if (!agents.includes(def.agent)) {
      throw schedulerError('ORYX_E_SCHEDULER_UNKNOWN_AGENT', `${where}: agent "${def.agent}" does not exist (agents: ${agents.join(', ') || 'none'})`);
    }
    if (def.notify === undefined) return;
    const notify = notifyPort(this.kernel);
    if (!notify) throw schedulerError('ORYX_E_SCHEDULER_UNKNOWN_CHANNEL', `${where}: notify channel "${def.notify}" cannot be used: the notify plugin is not enabled`);
    if (!await notify.hasChannel(def.notify)) {
      throw schedulerError('ORYX_E_SCHEDULER_UNKNOWN_CHANNEL', `${where}: notify channel "${def.notify}" does not exist`);
    }
  }

  private checkAtFuture(def: TaskDefinition, where: string): void {
    if (def.schedule.kind === 'at' && def.schedule.at <= Date.now()) {
      throw schedulerError('ORYX_E_SCHEDULER_AT_PAST', `${where}: at ${new Date(def.schedule.at).toISOString()} has passed (now is ${iso(Date.now())})`);
    }
  }

  private refuseConfigTask(name: string, what: string): void {
    if (this.configNames.has(name)) {
      throw schedulerError('ORYX_E_SCHEDULER_CONFIG_TASK', `task "${name}" is declared in oryx.config.ts; ${what} it there, not at run time`);
    }
  }
}

function notFound(name: string) {
  return schedulerError('ORYX_E_SCHEDULER_NOT_FOUND', `no task named "${name}"`);
}
