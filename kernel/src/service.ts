import type { RunContinuation, SessionInfo, SessionStore, StoredMessage } from '@oryxos/contracts';
import { OryxError, errorMessage, isOryxError, toOryxError, type Message, type Provider, type ToolCall } from '@oryxos/provider-spec';
import { follow, RunBudget } from '@oryxos/stop-rules';
import { ToolExecutor } from './executor.ts';
import { groupTurns, openCalls, windowStart } from '@oryxos/history';
import type { Kernel } from './kernel.ts';
import { runLoop, type LoopResult } from './loop.ts';
import { definedOptions } from '@oryxos/schema-kit';
import type { AgentDefinition, RunContext, RunEvent, RunInput, RunResult, Tool, ToolResult } from './types.ts';

/** How a run continues a suspended one: its stored record's continuation. */
interface Continuing { runId: string; continuation: RunContinuation }

/** A run going on in this process: what a sub-agent's run draws on. */
interface Active { run: RunState; budget: RunBudget }

/** A run of this process: its iteration counts up. */
type RunState = RunContext & { iteration: number };

/**
 * The single entry every door shares (the CLI, the REST server, the scheduler, channels): load
 * the agent, open or create the session, serialize runs on it, run the loop, commit every
 * message. Runs on a session go one at a time, in this process and across processes (the
 * store's lock).
 *
 * @example
 * const { answer, sessionId } = await kernel.runs.process({ agent: 'assistant', message: 'hello' });
 */
export class AgentService {
  private readonly tails = new Map<string, Promise<unknown>>();
  /** Runs going on now (or queued), by session: what {@link abortSession} stops. */
  private readonly queued = new Map<string, Set<AbortController>>();
  private readonly active = new Map<string, Active>();

  constructor(private readonly kernel: Kernel) {}

  /** Runs an agent on one message. */
  process(input: RunInput): Promise<RunResult> {
    return input.session ? this.queue(input.session, input) : this.run(input);
  }

  /**
   * Continues a run that stopped with stop reason `suspended`, once what it waited for is there
   * (a person decided): its calls without a result run again (a `beforeTool` guard now lets them
   * through or answers them), then the loop goes on. A call that had started when its process
   * died is not run again: it gets a result saying it was interrupted. Throws
   * ORYX_E_RUN_NOT_CONTINUABLE for a run that is not suspended or whose calls have results.
   *
   * @example
   * await kernel.service('approvals').decide(id, { decision: 'approve', by: 'cli' });
   * const result = await kernel.runs.continue(approval.runId);
   */
  async continue(runId: string, options: Pick<RunInput, 'signal' | 'stream' | 'onEvent' | 'origin'> = {}): Promise<RunResult> {
    const record = this.kernel.hasService('runRecords') ? await this.kernel.service('runRecords').get(runId) : undefined;
    if (!record || record.stopReason !== 'suspended' || !record.continuation) {
      throw notContinuable(runId, !record ? 'there is no such run' : `it ended with stop reason ${record.stopReason}, not suspended`);
    }
    const { provider, model, user, door } = record.continuation;
    return this.queue(record.sessionId, {
      agent: record.agent, session: record.sessionId, message: '', provider, model, ...(user ? { user } : {}), ...(door ? { door } : {}), ...options,
    }, { runId, continuation: record.continuation });
  }

  /** True while a run on the session is going on or queued in this process. */
  isRunning(sessionId: string): boolean {
    return this.queued.has(sessionId);
  }

  /**
   * Aborts every run on the session in this process (running or queued) and resolves once they
   * have ended, so the caller can then change or delete the session safely. Resolves to the
   * number of runs aborted.
   */
  async abortSession(sessionId: string, reason: unknown = 'session-aborted'): Promise<number> {
    const runs = [...(this.queued.get(sessionId) ?? [])];
    for (const controller of runs) controller.abort(reason);
    await this.tails.get(sessionId)?.catch(() => {});
    return runs.length;
  }

  /** Runs on an existing session queue up in call order, before any await. */
  private async queue(sessionId: string, input: RunInput, continuing?: Continuing): Promise<RunResult> {
    const controller = new AbortController();
    const unfollow = follow(input.signal, controller);
    const set = this.queued.get(sessionId) ?? new Set();
    this.queued.set(sessionId, set.add(controller));
    try {
      return await this.serialize(sessionId, controller.signal, () => this.run({ ...input, signal: controller.signal }, continuing));
    } finally {
      unfollow();
      set.delete(controller);
      if (set.size === 0 && this.queued.get(sessionId) === set) this.queued.delete(sessionId);
    }
  }

  /** One run, from its agent and session to its result and record. */
  private async run(input: RunInput, continuing?: Continuing): Promise<RunResult> {
    const agent = await this.kernel.agents.load(input.agent);
    const { provider, model } = this.target(agent, input);
    const parent = input.parent ? this.active.get(input.parent.runId) : undefined;
    if (input.parent && !parent) throw new OryxError('ORYX_E_RUN_FAILED', `The run ${input.parent.runId} that would start a sub-agent is not going on in this process`);
    const session = await this.openSession(agent, input, parent);
    const budget = new RunBudget(agent.settings, parent?.budget);
    const { run, dispose } = runState({
      runId: crypto.randomUUID(), agent, sessionId: session.id, provider: provider.name, model, startedAt: new Date().toISOString(),
      user: input.user ?? parent?.run.user, door: input.door ?? parent?.run.door, parentRunId: parent?.run.runId,
      callers: parent ? [...(parent.run.callers ?? []), parent.run.agent] : undefined, continued: continuing?.continuation, origin: input.origin,
      direct: input.call !== undefined || continuing?.continuation.direct === true || undefined,
    }, [input.signal, budget.signal]);
    this.active.set(run.runId, { run, budget });
    try {
      // Aborted while queued behind another run: leave the session untouched.
      if (run.signal.aborted && !budget.timeout) return this.ended(run, budget, { stopReason: 'aborted', notice: 'aborted' });
      // A tap may refuse the run here (a session that waits for a person): nothing is written yet.
      await this.kernel.hooks.runStart.promise(run);
      // Listed before anything is written, so an agent its tool sources refuse (a sub-agent
      // cycle) is refused untouched; later steps list again (a server may add tools mid-run).
      let first: Tool[] | undefined = await this.kernel.toolsFor(agent, run);
      const { history, pending, seqs } = await this.history(run, session, input, continuing);
      const result = await runLoop({
        kernel: this.kernel, run, provider, budget, history, pending,
        tools: async () => {
          const tools = first ?? await this.kernel.toolsFor(agent, run);
          first = undefined;
          return tools;
        },
        watches: this.kernel.stopRules.map((rule) => rule.start(run)),
        commit: (m) => this.store.append(session.id, [this.kernel.secrets.message(m)]),
        seqOf: (m) => seqs.get(m),
        stream: input.stream ?? false,
        emit: (event: RunEvent) => input.onEvent?.(event),
        callsOnly: run.direct === true,
      });
      return await this.ended(run, budget, result);
    } catch (error) {
      // A run refused or failed outside the loop still reaches afterRun, so its record exists.
      if (isOryxError(error) && error.data?.hook === 'afterRun') throw error;
      const e = toOryxError(error, 'ORYX_E_RUN_FAILED');
      await this.ended(run, budget, { stopReason: 'error', error: { code: e.code, message: e.message } })
        .catch((again) => this.kernel.log.warn(`afterRun failed: ${errorMessage(again)}`));
      throw error;
    } finally {
      budget.dispose();
      dispose();
      this.active.delete(run.runId);
    }
  }

  private get store(): SessionStore { return this.kernel.service('sessions'); }

  /**
   * The provider and model of a run: `--provider`/`--model` over the agent's; a model written
   * `name/model` picks the enabled provider called `name` (an explicit map, never a guess by
   * type) and the server gets the bare model id.
   */
  private target(agent: AgentDefinition, input: RunInput): { provider: Provider; model: string } {
    const own = this.kernel.providerFor(agent);
    let provider = input.provider ? this.kernel.provider(input.provider) : own;
    let model = input.model ?? (provider === own ? agent.model : undefined) ?? provider.defaultModel;
    const slash = model?.indexOf('/') ?? -1;
    if (model && slash > 0 && !input.provider && this.kernel.providerNames.includes(model.slice(0, slash))) {
      provider = this.kernel.provider(model.slice(0, slash));
      model = model.slice(slash + 1) || provider.defaultModel;
    }
    if (!model) {
      throw new OryxError('ORYX_E_AGENT_INVALID', `Agent "${agent.name}" names no model and provider "${provider.name}" has no default`, {
        hint: `Pass a model for this run, set model: in ${agent.file}, or defaultModel in the provider's options.`,
      });
    }
    return { provider, model };
  }

  /** The session a run uses: a child of the parent's (a sub-agent), the one named (checked), or a new one. */
  private async openSession(agent: AgentDefinition, input: RunInput, parent?: Active): Promise<SessionInfo> {
    if (parent) return this.store.create({ agent: agent.name, parentSessionId: parent.run.sessionId });
    if (!input.session) return this.store.create({ agent: agent.name, ...(input.tags?.length ? { tags: input.tags } : {}) });
    const session = await this.store.get(input.session);
    if (!session) {
      throw new OryxError('ORYX_E_SESSION_NOT_FOUND', `No session "${input.session}"`, {
        hint: 'List sessions with `oryx sessions`, or omit the session to start a new one.',
      });
    }
    if (session.agent !== agent.name) {
      throw new OryxError('ORYX_E_SESSION_AGENT_MISMATCH', `Session "${input.session}" belongs to agent "${session.agent}", not "${agent.name}"`, {
        hint: `Resume it with --agent ${session.agent}, or start a new session.`,
      });
    }
    return session;
  }

  /**
   * The history the run starts from, read before anything is written (a session whose history
   * cannot be read is refused untouched): the window of turns the prompt holds, turns leaving
   * it shown to `trimContext`, the calls left without a result closed (a new message) or
   * pending (a continued run), and the new message appended.
   */
  private async history(run: RunState, session: SessionInfo, input: RunInput, continuing?: Continuing): Promise<{
    history: Message[]; seqs: Map<Message, number>; pending?: { calls: ToolCall[]; results: Map<string, ToolResult> };
  }> {
    const max = run.agent.settings.max_history_turns;
    // A store that does not count turns (a third party's) gets the last window's worth, read twice.
    const total = session.turns ?? (await this.store.history(session.id, max)).filter((m) => m.message.role === 'user').length;
    const adding = continuing ? 0 : 1;
    const from = windowStart(total, max);
    const to = windowStart(total + adding, max);
    const stored = total > from ? await this.store.history(session.id, total - from) : [];
    const messages = stored.map((s) => s.message);
    const open = openCalls(messages);
    let pending: { calls: ToolCall[]; results: Map<string, ToolResult> } | undefined;
    if (continuing) {
      const waiting = new Set(continuing.continuation.suspended.map((c) => c.toolCallId));
      if (!open || !open.calls.some((c) => waiting.has(c.id))) throw notContinuable(continuing.runId, 'its calls already have results: it was continued before, or a new message came after it');
      pending = { calls: open.calls, results: await this.interrupted(run, open.calls) };
    } else if (open) {
      messages.push(...await this.closeOpen(run, open.calls));
    }
    if (to > from) await this.trimWindow(run, stored, to - from);
    const kept = groupTurns(messages).slice(Math.max(0, to - from)).flat();
    if (!continuing) {
      const user: Message = { role: 'user', content: input.message, ...(input.parts?.length ? { parts: input.parts } : {}) };
      await this.store.append(session.id, [this.kernel.secrets.message(user)]);
      kept.push(user);
    }
    if (input.call && !continuing) {
      // The door's own call, committed as the step it stands for, so the session and a continued run read it like a model's.
      const call: ToolCall = { id: `call_${crypto.randomUUID()}`, name: input.call.name, args: input.call.args };
      const step: Message = { role: 'assistant', content: '', toolCalls: [call] };
      await this.store.append(session.id, [this.kernel.secrets.message(step)]);
      kept.push(step);
      pending = { calls: [call], results: new Map() };
    }
    return { history: kept, seqs: new Map(stored.map((s) => [s.message, s.seq])), pending };
  }

  /** Turns leaving the window, for `trimContext` (memory checkpoints them). */
  private async trimWindow(run: RunState, stored: StoredMessage[], leaving: number): Promise<void> {
    const turns: { firstSeq?: number; messages: Message[] }[] = [];
    for (const s of stored) {
      if (s.message.role === 'user' || turns.length === 0) {
        if (turns.length === leaving) break;
        turns.push({ firstSeq: s.seq, messages: [] });
      }
      turns.at(-1)!.messages.push(s.message);
    }
    if (turns.length) await this.kernel.hooks.trimContext.promise({ run, reason: 'window', turns });
  }

  /** Results for the open calls that had started in a process that died: they are not run again (unless the tool is idempotent). */
  private async interrupted(run: RunState, calls: ToolCall[]): Promise<Map<string, ToolResult>> {
    const started = new Set((await this.store.startedWithoutResult(run.sessionId)).map((m) => m.toolCallId));
    const tools = new Map((await this.kernel.toolsFor(run.agent, run)).map((t) => [t.name, t]));
    const results = new Map<string, ToolResult>();
    for (const call of calls) {
      if (started.has(call.id) && !tools.get(call.name)?.idempotent) {
        results.set(call.id, {
          content: `Interrupted: this call had started when its process stopped, and its result was never recorded. It may have run, in part or whole; it was not run again. Check its effect before you call it again.`,
          isError: true, interrupted: true,
        });
      }
    }
    return results;
  }

  /**
   * A new message came while the last step's calls had no result: each gets one (audited), so
   * the history is whole — a call the run was suspended at is denied by the new message.
   */
  private async closeOpen(run: RunState, calls: ToolCall[]): Promise<Message[]> {
    const interrupted = await this.interrupted(run, calls);
    const records = this.kernel.hasService('runRecords') ? await this.kernel.service('runRecords').list({ sessionId: run.sessionId, limit: 2 }) : [];
    const last = records.find((r) => r.runId !== run.runId);
    const waited = new Map((last?.stopReason === 'suspended' ? last.continuation?.suspended ?? [] : []).map((s) => [s.toolCallId, s]));
    const executor = new ToolExecutor(this.kernel);
    const out: Message[] = [];
    for (const call of calls) {
      const suspended = waited.get(call.id);
      const instead: ToolResult = interrupted.get(call.id) ?? (suspended
        ? { content: `Not run: it was waiting (${suspended.reason}), and a new message came instead.`, isError: true, denied: 'a new message came instead' }
        : { content: 'Not run: a new message came before this call ran.', isError: true });
      const outcome = await executor.execute(call, run, new Map(), instead);
      if ('message' in outcome) out.push(outcome.message);
    }
    await this.store.append(run.sessionId, out.map((m) => this.kernel.secrets.message(m)));
    return out;
  }

  /** The run's result, with its secrets masked, through `afterRun` (its record). */
  private async ended(run: RunState, budget: RunBudget, result: Partial<LoopResult> & Pick<LoopResult, 'stopReason'>): Promise<RunResult> {
    const { secrets } = this.kernel;
    const full: RunResult = {
      runId: run.runId, sessionId: run.sessionId, agent: run.agent.name, answer: '', iterations: run.iteration,
      usage: { inputTokens: 0, outputTokens: 0 }, budget: budget.used(), ...result,
      ...(result.error ? { error: { ...result.error, message: secrets.mask(result.error.message), ...(result.error.hint ? { hint: secrets.mask(result.error.hint) } : {}) } } : {}),
    };
    await this.kernel.hooks.afterRun.promise(full, run);
    return full;
  }

  /** Runs on one session go one after the other, in this process and (via the store's lock) across processes. */
  private async serialize<T>(sessionId: string, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(sessionId) ?? Promise.resolve();
    // A run whose signal fires while it waits stops waiting (and then writes nothing).
    const waited = new Promise<void>((resolve) => {
      previous.then(() => resolve(), () => resolve());
      if (signal.aborted) resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    const mine = waited.then(async () => {
      if (signal.aborted) return fn();
      const release = this.store.lock ? await this.store.lock(sessionId, signal) : undefined;
      try { return await fn(); } finally { await release?.(); }
    });
    // The next run waits for this one and for everything before it.
    const tail = Promise.allSettled([previous, mine]);
    this.tails.set(sessionId, tail);
    try {
      return await mine;
    } finally {
      if (this.tails.get(sessionId) === tail) this.tails.delete(sessionId);
    }
  }
}

/** A run as taps see it: its fields (none undefined) and a signal that fires when the caller's does or the budget's time is up. */
function runState(fields: Omit<RunContext, 'iteration' | 'signal'>, signals: (AbortSignal | undefined)[]): { run: RunState; dispose(): void } {
  const controller = new AbortController();
  const unfollow = signals.map((s) => follow(s, controller));
  const run = { ...definedOptions(fields) as typeof fields, iteration: 0, signal: controller.signal };
  return { run, dispose: () => { for (const f of unfollow) f(); } };
}

function notContinuable(runId: string, why: string): OryxError {
  return new OryxError('ORYX_E_RUN_NOT_CONTINUABLE', `Run ${runId} cannot be continued: ${why}`, {
    hint: 'List runs with `oryx runs` (a continuable one is `suspended`); send the session a new message to go on instead.',
    data: { runId },
  });
}
