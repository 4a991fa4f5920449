import { fileURLToPath } from 'node:url';
import type Bree from 'bree';
import { errorMessage } from '@oryxos/provider-spec';
import type { PluginContext, RunContext } from '@oryxos/kernel';
import type { Approval } from '@oryxos/contracts';
import { notifyPort } from './notify-port.ts';
import { holdsInProcess, liveness, newOwnerId } from './owner.ts';
import type { ActiveRow, Claim, ExecutionRow, FiredBy, Outcome, TaskRow, TaskStore } from './queries.ts';
import { describeSchedule, nextSlot, slotsBetween } from './schedule.ts';
import { definitionOf } from './rows.ts';
import type { Overlap, TaskDefinition } from './task.ts';

/** Tuning of the engine (the plugin's options). */
export interface EngineOptions {
  /** How long `stop()` lets running runs finish before aborting them. */
  graceMs: number;
  /** An execution whose process has not renewed it for this long counts as interrupted (other hosts). */
  leaseMs: number;
  /** How often a running scheduler reads the tasks others added, changed or removed. */
  refreshMs: number;
  /** How long an approval a scheduled run waits for stays pending before it is denied (by `timeout`). */
}

/** What `stop()` did with the runs going on: finished within the grace period, or aborted after it (queued ones, which never start, are neither). */
export interface StopReport { finished: number; aborted: number }

/**
 * A slot is on time for this long. A tick that comes this late (a tick worker slow to start on a
 * loaded machine) still runs it as scheduled; only older slots were slept through and follow
 * `catchUp`. At start, slots this close to now are left to the running path: a live process
 * elsewhere may be claiming them, late by as much.
 */
export const SETTLE_MS = 5000;
/** At most this many missed slots of one task are looked at (the newest). */
export const MISSED_LIMIT = 1000;
/** The answer kept in an execution row (the whole answer is in the session). */
export const ANSWER_CHARS = 4000;
const POLL_MS = 250;
/** A tick this late was lost (a worker that never started): the refresh fires it, as it fires a task that is not armed. */
const LOST_TICK_MS = 5000;
const TIMEOUT = Symbol('timeout');
const SHUTDOWN = Symbol('shutdown');

const TICK_WORKER = fileURLToPath(new URL('../worker/tick.mjs', import.meta.url));
const iso = (ms: number) => new Date(ms).toISOString();
/** A slot's time; old rows migrated from before the scheduler existed may carry `#id`. */
const slotTime = (slot: string) => Date.parse(slot.split('#')[0]!);

/** An execution this process holds. */
interface Held {
  id: number;
  task: string;
  slot: string;
  firedBy: FiredBy;
  queued: boolean;
  controller: AbortController;
  sessionId?: string;
  done: Promise<ExecutionRow | undefined>;
}

/**
 * Fires each slot of each enabled task once, across every process sharing the database. Bree
 * holds one timer per task, armed for its next slot; when it fires, a worker thread posts the
 * slot back and exits, and the main process claims the slot (a unique row), runs the agent
 * through the kernel's AgentService, records the outcome and sends it to the task's channel.
 *
 * @example
 * const engine = new SchedulerEngine(kernel, store, { graceMs: 30_000, leaseMs: 30_000, refreshMs: 5_000 });
 * await engine.start();
 * await engine.stop({ graceMs: 10_000 });
 */
export class SchedulerEngine {
  private ownerId?: string;
  /** Who claims this engine's executions, made when first asked for: a read command never needs one. */
  get owner(): string {
    return (this.ownerId ??= newOwnerId());
  }
  private state: 'stopped' | 'starting' | 'started' | 'stopping' = 'stopped';
  private bree?: Bree;
  private jobSeq = 0;
  /** Task → the Bree job armed for its next slot. */
  private readonly armed = new Map<string, { job: string; slot: number }>();
  /** Task → the time up to which its slots have been dealt with. */
  private readonly handled = new Map<string, number>();
  /** Task → what its row looked like when last tracked (a change re-tracks it). */
  private readonly versions = new Map<string, string>();
  private readonly held = new Map<number, Held>();
  /** Executions whose outcome could not be written: no longer live, whatever the row says. */
  private readonly lost = new Set<number>();
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly waiters = new Map<string, Set<() => void>>();
  /** Session → run id of the run going on in it, seen in `runStart`. */
  private readonly runIds = new Map<string, string>();
  private refreshTimer?: NodeJS.Timeout;
  private heartbeatTimer?: NodeJS.Timeout;
  private readonly isLive: (row: ActiveRow) => boolean;
  /** Whether an execution this scheduler claimed is still live: unless its outcome could not be written. */
  private readonly ownsLive = (id: number) => !this.lost.has(id);
  /** Claims going on: their rows may be in the database before they are in `held`. */
  private claiming = 0;

  constructor(private readonly kernel: PluginContext, private readonly store: TaskStore, private readonly options: EngineOptions) {
    let live: ((row: ActiveRow, now: number) => boolean) | undefined;
    this.isLive = (row) => (live ??= liveness({ self: this.owner, held: this.ownsLive, leaseMs: options.leaseMs }))(row, Date.now());
  }

  get started(): boolean { return this.state === 'started' || this.state === 'starting'; }

  /** Runs going on (or queued) in this process. */
  get inFlight(): number { return this.held.size; }

  /** Called from the kernel's `runStart`: remembers the run id of a run the scheduler started. */
  noteRun(run: RunContext): void {
    if (this.runIds.has(run.sessionId)) this.runIds.set(run.sessionId, run.runId);
  }

  /** Starts ticking: recovers runs of dead processes, catches up missed slots, arms every task. */
  async start(): Promise<void> {
    if (this.state !== 'stopped') return;
    this.state = 'starting';
    try {
      const { default: BreeClass } = await import('bree');
      const log = this.kernel.log;
      const bree = new BreeClass({
        root: false, doRootCheck: false, jobs: [],
        logger: { info: (m: unknown) => log.debug(`bree: ${String(m)}`), warn: (m: unknown) => log.debug(`bree: ${String(m)}`), error: (m: unknown) => log.warn(`bree: ${errorMessage(m)}`) },
        workerMessageHandler: ({ message }: { message: unknown }) => {
          const tick = message as { task?: string; slot?: number };
          if (typeof tick?.task === 'string' && typeof tick.slot === 'number') void this.fire(tick.task, tick.slot);
        },
        errorHandler: (error: unknown, meta: { name?: string } | undefined) => log.warn(`the tick worker of ${meta?.name} failed: ${errorMessage(error)}`),
      } as unknown as Bree.BreeOptions);
      bree.on('worker deleted', (job: string) => void this.forget(job));
      bree.on('job past', (job: string) => { const task = this.taskOf(job); if (task) void this.fire(task); });
      this.bree = bree;
      await this.store.recoverAll(iso(Date.now()), this.isLive);
      for (const row of await this.store.listTasks()) if (row.enabled) await this.track(row);
      let refreshing = false;
      this.refreshTimer = setInterval(() => {
        if (refreshing) return;
        refreshing = true;
        void this.refresh().catch((e) => log.warn(`refresh failed: ${errorMessage(e)}`)).finally(() => { refreshing = false; });
      }, this.options.refreshMs);
      this.beat();
      this.state = 'started';
    } catch (error) {
      await this.stop({ graceMs: 0 }).catch(() => {});
      throw error;
    }
  }

  /**
   * Stops ticking, lets running runs finish for `graceMs`, then aborts them (recorded
   * `timeout`, ORYX_E_SCHEDULER_SHUTDOWN). Queued runs never start (recorded `skipped`).
   */
  async stop(options: { graceMs?: number } = {}): Promise<StopReport> {
    if (this.state === 'stopped' && this.held.size === 0) return { finished: 0, aborted: 0 };
    this.state = 'stopping';
    clearInterval(this.refreshTimer);
    this.refreshTimer = undefined;
    const bree = this.bree;
    this.bree = undefined;
    this.armed.clear();
    this.handled.clear();
    this.versions.clear();
    // A tick that began before may still be claiming a slot (or arming a job on this Bree): it
    // ends first, so every run it claimed is seen below and every job it armed is stopped.
    await Promise.allSettled([...this.chains.values()]);
    await bree?.stop().catch(() => {});
    for (const h of this.held.values()) if (h.queued) h.controller.abort(SHUTDOWN);
    const running = [...this.held.values()].filter((h) => !h.queued);
    const graceMs = options.graceMs ?? this.options.graceMs;
    let timer: NodeJS.Timeout | undefined;
    const graceOver = await Promise.race([
      Promise.allSettled(running.map((h) => h.done)).then(() => false),
      new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(true), graceMs); }),
    ]);
    clearTimeout(timer);
    // Queued runs were told to stop above and are not counted, even if recording them is not done yet.
    const late = graceOver ? [...this.held.values()].filter((h) => !h.queued) : [];
    if (graceOver) for (const h of this.held.values()) h.controller.abort(SHUTDOWN);
    await Promise.allSettled([...this.held.values()].map((h) => h.done));
    this.state = 'stopped';
    this.beat();
    return { finished: running.filter((h) => !late.includes(h)).length, aborted: late.length };
  }

  /** A task was added, changed or removed in this process: deal with it now, not at the next refresh. */
  async taskChanged(name: string): Promise<void> {
    if (!this.started) return;
    const row = await this.store.getTask(name);
    await this.serial(name, async () => {
      if (!row || !row.enabled) return this.untrack(name);
      this.versions.set(name, versionOf(row));
      return this.trackNow(row);
    });
  }

  /**
   * Runs a task now (`oryx schedule run`), recorded like a scheduled run with the current time
   * as its slot and the task's overlap rule; resolves to the execution row once it is done.
   */
  async runNow(def: TaskDefinition): Promise<ExecutionRow> {
    const held = await this.launch(def, Date.now(), 'manual', def.overlap);
    const row = held.kind === 'held' ? await held.held.done : held.id !== undefined ? await this.store.execution(held.id) : undefined;
    if (!row) throw new Error(`the execution of task ${def.name} was not recorded`);
    return row;
  }

  // ---------------------------------------------------------------------------------------
  // Ticking

  /** Catches up the slots missed while no process ran the task, then handles the current ones and arms it. */
  private track(row: TaskRow): Promise<void> {
    this.versions.set(row.name, versionOf(row));
    return this.serial(row.name, () => this.trackNow(row));
  }

  private async trackNow(row: TaskRow): Promise<void> {
    const def = definitionOf(row);
    const latest = await this.store.latestSlot(row.name);
    const from = Math.max(Date.parse(row.active_since), latest ? slotTime(latest) : -Infinity);
    const settled = Date.now() - SETTLE_MS;
    const { slots, omitted } = slotsBetween(def.schedule, from, settled, MISSED_LIMIT);
    if (omitted) this.kernel.log.warn(`task ${def.name}: more than ${MISSED_LIMIT} slots were missed; only the newest ${MISSED_LIMIT} are recorded`);
    this.handled.set(row.name, Math.max(from, settled));
    await this.dispatch(def, slots);
    await this.tick(row.name);
  }

  /** A Bree tick (or a lost one found by the refresh): handle the slots due, arm the next. */
  private fire(task: string, slot?: number): Promise<void> {
    return this.serial(task, () => this.tick(task, slot)).catch((error) => {
      this.kernel.log.warn(`task ${task}: ${errorMessage(error)}`);
    });
  }

  private async tick(task: string, firedSlot?: number): Promise<void> {
    if (!this.started) return;
    const row = await this.store.getTask(task);
    if (!row || !row.enabled) return this.untrack(task);
    const def = definitionOf(row);
    // A timer never fires early, but Date.now() may lag its clock by a millisecond.
    const now = Math.max(Date.now(), firedSlot ?? 0);
    const after = this.handled.get(task) ?? now;
    const { slots } = slotsBetween(def.schedule, after, now, MISSED_LIMIT);
    this.handled.set(task, Math.max(after, now));
    // Armed before the slots due now are claimed, so a slow claim never delays the next timer;
    // a task that could not be armed is fired again by the refresh.
    await this.arm(task, def, now).catch((error) => this.kernel.log.warn(`task ${task}: could not arm its next slot: ${errorMessage(error)}`));
    await this.dispatch(def, slots, now);
  }

  /**
   * At start (no `tickAt`) every slot is a missed one. On a tick the last slot and those less
   * than {@link SETTLE_MS} older than the tick are due; any before them were missed (the process
   * slept or stalled). Missed slots follow `catchUp`; due ones run by `overlap`.
   */
  private async dispatch(def: TaskDefinition, slots: number[], tickAt?: number): Promise<void> {
    if (!slots.length) return;
    let firstDue = slots.length;
    if (tickAt !== undefined) {
      firstDue--;
      while (firstDue > 0 && slots[firstDue - 1]! > tickAt - SETTLE_MS) firstDue--;
    }
    const missed = slots.slice(0, firstDue);
    const runs: { slot: number; firedBy: FiredBy }[] = [];
    let skip: number[] = missed;
    if (def.catchUp === 'all') {
      runs.push(...missed.map((slot) => ({ slot, firedBy: 'catch-up' as const })));
      skip = [];
    } else if (def.catchUp === 'latest' && tickAt === undefined) {
      runs.push({ slot: missed.at(-1)!, firedBy: 'catch-up' });
      skip = missed.slice(0, -1);
    }
    runs.push(...slots.slice(firstDue).map((slot) => ({ slot, firedBy: 'schedule' as const })));
    const recorded = await this.store.insertMissed(def.name, skip.map(iso), this.owner, iso(Date.now()));
    if (recorded) this.kernel.log.info(`task ${def.name}: ${recorded} slot(s) missed (catchUp: ${def.catchUp})`);
    // Caught-up slots run one after the other, whatever overlap says.
    for (const r of runs) await this.launch(def, r.slot, r.firedBy, r.firedBy === 'catch-up' ? 'queue' : def.overlap);
  }

  private async arm(task: string, def: TaskDefinition, now: number): Promise<void> {
    const next = nextSlot(def.schedule, now);
    if (this.armed.get(task)?.slot === next && next !== undefined) return;
    await this.disarm(task);
    const bree = this.bree;
    if (next === undefined || !bree) return;
    const job = `${task}#${++this.jobSeq}`;
    // No execArgv: a worker of a process started with `--import tsx` must not load TypeScript.
    await bree.add({ name: job, path: TICK_WORKER, date: new Date(next), worker: { workerData: { task, slot: next }, execArgv: [] } } as Bree.JobOptions);
    this.armed.set(task, { job, slot: next });
    await bree.start(job);
    this.kernel.log.debug(`task ${task} (${describeSchedule(def.schedule)}) next at ${iso(next)}`);
  }

  private async disarm(task: string): Promise<void> {
    const armed = this.armed.get(task);
    if (!armed) return;
    this.armed.delete(task);
    await this.bree?.remove(armed.job).catch(() => {});
  }

  private async untrack(task: string): Promise<void> {
    await this.disarm(task);
    this.handled.delete(task);
    this.versions.delete(task);
  }

  /** A tick worker has exited: drop its job unless it is the one armed now. */
  private async forget(job: string): Promise<void> {
    const task = this.taskOf(job);
    if (task && this.armed.get(task)?.job !== job) await this.bree?.remove(job).catch(() => {});
  }

  private taskOf(job: string): string | undefined {
    const at = job.lastIndexOf('#');
    return at > 0 ? job.slice(0, at) : undefined;
  }

  /** Picks up tasks other processes added, changed or removed, and fires any tick that got lost. */
  private async refresh(): Promise<void> {
    if (this.state !== 'started') return;
    const rows = await this.store.listTasks();
    const seen = new Set<string>();
    for (const row of rows) {
      seen.add(row.name);
      const known = this.versions.get(row.name);
      if (!row.enabled) {
        if (known !== undefined) await this.serial(row.name, () => this.untrack(row.name));
      } else if (known !== versionOf(row)) {
        await this.track(row);
      } else {
        const armed = this.armed.get(row.name);
        if (!armed || armed.slot < Date.now() - LOST_TICK_MS) await this.fire(row.name);
      }
    }
    for (const task of [...this.versions.keys()]) if (!seen.has(task)) await this.serial(task, () => this.untrack(task));
  }

  // ---------------------------------------------------------------------------------------
  // Running

  /** Claims a slot; when it is ours, runs it in the background. */
  private async launch(def: TaskDefinition, slotMs: number, firedBy: FiredBy, overlap: Overlap): Promise<{ kind: 'held'; held: Held } | { kind: 'other'; id?: number }> {
    const slot = iso(slotMs);
    // Once stop() has begun, only an explicit `oryx schedule run` may start a run.
    if (firedBy !== 'manual' && !this.started) return { kind: 'other' };
    this.claiming++;
    this.beat();
    let claim: Claim;
    try {
      claim = await this.store.claim({ task: def.name, slot, firedBy, owner: this.owner, now: iso(Date.now()), overlap, isLive: this.isLive });
    } finally {
      this.claiming--;
      this.beat();
    }
    if (claim.taken) {
      this.kernel.log.debug(`task ${def.name} slot ${slot} is claimed by another process`);
      return { kind: 'other' };
    }
    if (claim.status === 'skipped') {
      this.kernel.log.info(`task ${def.name} slot ${slot} skipped: the run of slot ${claim.blockedBy?.slot} is still going`);
      return { kind: 'other', id: claim.id };
    }
    const held: Held = { id: claim.id, task: def.name, slot, firedBy, queued: claim.status === 'queued', controller: new AbortController(), done: undefined! };
    this.held.set(held.id, held);
    this.beat();
    held.done = this.execute(held, def);
    return { kind: 'held', held };
  }

  private async execute(h: Held, def: TaskDefinition): Promise<ExecutionRow | undefined> {
    try {
      if (!h.queued || await this.waitTurn(h)) {
        h.queued = false;
        const { outcome, answer, approval } = await this.runAgent(h, def);
        await this.store.finish(h.id, outcome);
        // A slot that failed says what and how to fix it, not only its code.
        const line = `task ${def.name} slot ${h.slot}: ${outcome.status}${outcome.errorCode ? ` ${outcome.errorCode}` : ''}`;
        if (outcome.status === 'error' || outcome.status === 'timeout') {
          this.kernel.log.warn(`${line}: ${outcome.error ?? 'no message'}${outcome.hint ? ` (fix: ${outcome.hint})` : ''}`);
        } else this.kernel.log.info(line);
        if (def.notify) await this.notify(h, def, outcome, approval ? waitingMail(def, approval) : answer);
      }
    } catch (error) {
      this.lost.add(h.id);
      this.kernel.log.warn(`task ${def.name} slot ${h.slot}: could not record its outcome: ${errorMessage(error)}`);
    } finally {
      this.held.delete(h.id);
      if (h.sessionId) this.runIds.delete(h.sessionId);
      for (const wake of this.waiters.get(h.task) ?? []) wake();
      this.beat();
    }
    return this.store.execution(h.id).catch(() => undefined);
  }

  /** A queued run waits until no live run of its task is going and no earlier slot waits. */
  private async waitTurn(h: Held): Promise<boolean> {
    for (;;) {
      if (h.controller.signal.aborted) {
        await this.store.finish(h.id, {
          status: 'skipped', finishedAt: iso(Date.now()), errorCode: 'ORYX_E_SCHEDULER_SHUTDOWN', error: 'the scheduler stopped before this queued run started',
        });
        return false;
      }
      const turn = await this.store.promote(h, iso(Date.now()), this.isLive);
      // Told to stop while it was being promoted: the loop records it skipped.
      if (turn === 'running' && !h.controller.signal.aborted) return true;
      if (turn === 'gone') return false;
      await new Promise<void>((resolve) => {
        const set = this.waiters.get(h.task) ?? new Set();
        this.waiters.set(h.task, set);
        const done = () => { clearTimeout(timer); set.delete(done); h.controller.signal.removeEventListener('abort', done); resolve(); };
        const timer = setTimeout(done, POLL_MS);
        set.add(done);
        h.controller.signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  private async runAgent(h: Held, def: TaskDefinition): Promise<{ outcome: Outcome; answer?: string; approval?: Approval }> {
    const started = Date.now();
    const signal = h.controller.signal;
    const timer = setTimeout(() => h.controller.abort(TIMEOUT), def.timeoutMs);
    const base = () => ({ finishedAt: iso(Date.now()), durationMs: Date.now() - started });
    try {
      await this.kernel.agents.load(def.agent);
      const sessionId = await this.sessionFor(def, h.slot);
      h.sessionId = sessionId;
      this.runIds.set(sessionId, '');
      await this.store.setSession(h.id, sessionId);
      // Nobody is there to ask: an approval is stored, announced, and expires (approvals({ timeoutMs: { scheduler } })).
      // The slot as the run's origin: a tracing plugin makes it the parent of the run's span.
      const origin = { name: `scheduler ${def.name}`, startedAt: started, attributes: { 'oryx.task.name': def.name, 'oryx.task.slot': h.slot, 'oryx.task.fired_by': h.firedBy, 'oryx.task.execution_id': h.id } };
      const result = await this.kernel.runs.process({ agent: def.agent, session: sessionId, message: def.message, signal, door: 'scheduler', origin });
      const runId = this.runIds.get(sessionId) || undefined;
      const usage = { runId, iterations: result.iterations, inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens, stopReason: result.stopReason };
      if (result.stopReason === 'aborted' || signal.aborted) return { outcome: { ...base(), ...usage, ...this.abortedOutcome(signal, def) } };
      if (result.stopReason === 'error') {
        return { outcome: { ...base(), ...usage, status: 'error', errorCode: result.error?.code ?? 'ORYX_E_LLM_FAILED', error: result.error?.message ?? 'the run failed', ...(result.error?.hint ? { hint: result.error.hint } : {}) } };
      }
      if (result.stopReason === 'suspended') {
        const id = result.suspended?.[0]?.data?.approvalId;
        const approval = typeof id === 'string' && this.kernel.hasService('approvals') ? await this.kernel.service('approvals').get(id) : undefined;
        return { outcome: { ...base(), ...usage, status: 'waiting', error: result.notice ?? 'waiting for approval' }, ...(approval ? { approval } : {}) };
      }
      return { outcome: { ...base(), ...usage, status: 'ok', answer: result.answer.slice(0, ANSWER_CHARS) }, answer: result.answer };
    } catch (error) {
      if (signal.aborted) return { outcome: { ...base(), ...this.abortedOutcome(signal, def) } };
      const { code, hint } = error as { code?: unknown; hint?: unknown };
      return { outcome: { ...base(), status: 'error', errorCode: typeof code === 'string' && code.startsWith('ORYX_E_') ? code : 'ORYX_E_CLI_FAILED', error: errorMessage(error), ...(typeof hint === 'string' ? { hint } : {}) } };
    } finally {
      clearTimeout(timer);
    }
  }

  private abortedOutcome(signal: AbortSignal, def: TaskDefinition): Pick<Outcome, 'status' | 'errorCode' | 'error'> {
    return signal.reason === SHUTDOWN
      ? { status: 'timeout', errorCode: 'ORYX_E_SCHEDULER_SHUTDOWN', error: 'the scheduler stopped and the run did not finish within the grace period; it was aborted' }
      : { status: 'timeout', errorCode: 'ORYX_E_SCHEDULER_TIMEOUT', error: `the run took longer than timeoutMs (${def.timeoutMs} ms) and was aborted` };
  }

  /** A new session per run, or the task's one continuing session (created once, by whichever process first needs it). */
  private async sessionFor(def: TaskDefinition, slot: string): Promise<string> {
    const sessions = this.kernel.service('sessions');
    if (def.session === 'new') return (await sessions.create({ agent: def.agent, title: `task ${def.name} ${slot}` })).id;
    const current = (await this.store.getTask(def.name))?.session_id ?? null;
    if (current) {
      const session = await sessions.get(current);
      if (session && session.agent === def.agent) return session.id;
    }
    const created = await sessions.create({ agent: def.agent, title: `task ${def.name}` });
    if (await this.store.claimSession(def.name, created.id, current)) return created.id;
    await sessions.delete(created.id);
    return (await this.store.getTask(def.name))!.session_id!;
  }

  private async notify(h: Held, def: TaskDefinition, outcome: Outcome, answer?: string): Promise<void> {
    const port = notifyPort(this.kernel);
    const session = h.sessionId ? `session ${h.sessionId}` : 'no session';
    const subject = `[oryx] ${def.name}: ${outcome.status}`;
    const body = outcome.status === 'ok' || outcome.status === 'waiting'
      ? `${answer ?? outcome.answer ?? ''}\n\n-- \nTask ${def.name}, slot ${h.slot}, ${session}.\n`
      : `Task ${def.name} (slot ${h.slot}) ended with status ${outcome.status}.\n\n${outcome.errorCode}: ${outcome.error}\n\nSession: ${h.sessionId ?? '(none)'}\n`;
    try {
      if (!port) throw new Error('the notify plugin is not enabled');
      const sent = await port.send({ channel: def.notify!, subject, body, origin: `scheduler task ${def.name}`, sessionId: h.sessionId, runId: outcome.runId });
      await this.store.setNotify(h.id, sent.status, sent.id);
      if (sent.status !== 'sent') this.kernel.log.warn(`task ${def.name}: the result mail to channel ${def.notify} ${sent.status}: ${sent.error?.code} ${sent.error?.message}`);
    } catch (error) {
      await this.store.setNotify(h.id, 'failed', undefined);
      this.kernel.log.warn(`task ${def.name}: could not send the result to channel ${def.notify}: ${errorMessage(error)}`);
    }
  }

  /**
   * Renews this process's executions while any is held (or claimed), or the scheduler runs;
   * stops otherwise. Meanwhile the other schedulers of this process ask this one about them.
   */
  private beat(): void {
    const needed = this.held.size > 0 || this.claiming > 0 || this.state === 'started' || this.state === 'starting';
    holdsInProcess(this.owner, needed ? this.ownsLive : undefined);
    if (needed && !this.heartbeatTimer) {
      const every = Math.max(250, Math.floor(this.options.leaseMs / 3));
      this.heartbeatTimer = setInterval(() => {
        void this.store.heartbeat(this.owner, iso(Date.now())).catch((e) => this.kernel.log.warn(`heartbeat failed: ${errorMessage(e)}`));
      }, every);
      this.heartbeatTimer.unref();
    } else if (!needed && this.heartbeatTimer) {
      clearInterval(this.heartbeatTimer);
      this.heartbeatTimer = undefined;
    }
  }

  /** Runs `fn` after everything queued for the same task: one tick of a task at a time. */
  private serial<T>(task: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(task) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(fn);
    const tail = next.catch(() => {});
    this.chains.set(task, tail);
    void tail.then(() => { if (this.chains.get(task) === tail) this.chains.delete(task); });
    return next;
  }
}

/** What decides a task's slots and runs: a change re-tracks it. */
function versionOf(row: TaskRow): string {
  return `${row.updated_at}|${row.active_since}|${row.enabled}`;
}

/** The mail that announces an approval a scheduled run waits for: what, why, until when, how to decide. */
function waitingMail(def: TaskDefinition, approval: Approval): string {
  return [
    `Task ${def.name} waits for your approval of a ${approval.tool} call:`,
    '',
    approvalSummary(approval),
    '',
    `Approve: oryx approvals approve ${approval.id}`,
    `Deny:    oryx approvals deny ${approval.id} --reason "..."`,
    `(or POST /api/approvals/${approval.id} on oryx web, or the console)`,
    '',
    approval.expiresAt ? `Nobody deciding by ${approval.expiresAt} denies it.` : 'It waits until someone decides.',
  ].join('\n');
}

/** The call and why it asks, in one line. */
function approvalSummary(a: Approval): string {
  const args = JSON.stringify(a.args);
  return `${a.tool} ${args.length > 160 ? `${args.slice(0, 159)}…` : args}${a.asks.length ? `: ${a.asks.map((x) => x.reason).join('; ')}` : ''}`;
}
