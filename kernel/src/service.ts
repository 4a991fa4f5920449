import { OryxError, errorMessage, isOryxError, toOryxError } from './errors.ts';
import type { Kernel } from './kernel.ts';
import type { RunBudget } from './budget.ts';
import { tapped } from './hooks.ts';
import { auditDecision } from './approval.ts';
import type { ResumePoint } from './resume.ts';
import type * as RunParts from './run-parts.ts';
import { subAgentTools } from './sub-agents.ts';
import type { Approval, Message, RunContext, RunEvent, RunInput, RunResult, SessionInfo, StoredMessage } from './types.ts';

/** Loaded with the first run (run-parts.ts); after that, taken from here without an await. */
let runParts: typeof RunParts | undefined;

/** The run a sub-agent runs for: its context, its budget and the sub-agent levels left below it. */
interface ParentRun { run: RunContext; budget: RunBudget; depthLeft: number }

/**
 * The single entry the CLI, the REST channel and the scheduler share: load the agent, open
 * or create the session, serialize runs on it, run the loop, commit every message.
 *
 * @example
 * const service = new AgentService(kernel);
 * const { answer, sessionId } = await service.process({ agent: 'assistant', message: 'hello' });
 */
export class AgentService {
  private readonly tails = new Map<string, Promise<unknown>>();
  /** Runs going on now (or queued), by session: what {@link abortSession} stops. */
  private readonly active = new Map<string, Set<AbortController>>();

  constructor(readonly kernel: Kernel) {}

  /** Opens the session a run will use: the given one (checked) or a new one. */
  async openSession(agent: string, id?: string): Promise<SessionInfo> {
    const store = this.kernel.service('sessions');
    if (!id) return store.create({ agent });
    const session = await store.get(id);
    if (!session) {
      throw new OryxError('ORYX_E_SESSION_NOT_FOUND', `No session "${id}"`, {
        hint: 'List sessions with `oryx sessions`, or omit the session to start a new one.',
      });
    }
    if (session.agent !== agent) {
      throw new OryxError('ORYX_E_SESSION_AGENT_MISMATCH', `Session "${id}" belongs to agent "${session.agent}", not "${agent}"`, {
        hint: `Resume it with --agent ${session.agent}, or start a new session.`,
      });
    }
    return session;
  }

  async process(input: RunInput): Promise<RunResult> {
    return this.queue(input);
  }

  /**
   * Continues a run that stopped for an approval (stop reason `approval`) once it is decided,
   * from any process on the database: the approved call runs with exactly the approved actions
   * (a denied or expired one gives the model a denial with the reason), the other calls of that
   * response without a result run, and the loop goes on. Queued like any run on the session.
   * Throws ORYX_E_APPROVAL_NOT_RESUMABLE for an approval still pending, unknown, or whose call
   * already has a result.
   *
   * @example
   * await kernel.service('approvals').decide(id, { decision: 'approve', by: 'cli' });
   * const result = await kernel.runs.resume(id);
   */
  async resume(approvalId: string, options: { signal?: AbortSignal; stream?: boolean; onEvent?(event: RunEvent): void } = {}): Promise<RunResult> {
    const approval = this.kernel.hasService('approvals') ? await this.kernel.service('approvals').get(approvalId) : undefined;
    if (!approval) {
      throw new OryxError('ORYX_E_APPROVAL_NOT_RESUMABLE', `No approval "${approvalId}" to resume`, {
        hint: 'List approvals with `oryx approvals --status all` (or GET /api/approvals?status=all).',
      });
    }
    const saved = approval.resume ?? {};
    const text = (key: string) => (typeof saved[key] === 'string' ? { [key]: saved[key] as string } : {});
    const expiresInMs = typeof saved.expiresInMs === 'number' ? saved.expiresInMs : undefined;
    return this.queue({
      agent: approval.agent, session: approval.sessionId, message: '', ...text('user'), ...text('provider'), ...text('model'),
      ...(expiresInMs ? { approval: { expiresInMs } } : {}), ...options,
    }, approval);
  }

  /** Runs on an existing session queue up in call order, before any await. */
  private async queue(input: RunInput, resume?: Approval): Promise<RunResult> {
    if (!input.session) return this.run(input);
    const sessionId = input.session;
    const controller = new AbortController();
    // The caller's signal is followed by a listener: AbortSignal.any costs several times more on
    // Node 20 (weak references and a finalization registry per combined signal).
    const outer = input.signal;
    const follow = () => controller.abort(outer!.reason);
    if (outer?.aborted) follow();
    else outer?.addEventListener('abort', follow, { once: true });
    const signal = controller.signal;
    const set = this.active.get(sessionId) ?? new Set();
    this.active.set(sessionId, set.add(controller));
    try {
      return await this.serialize(sessionId, signal, () => this.run({ ...input, signal }, undefined, resume));
    } finally {
      outer?.removeEventListener('abort', follow);
      set.delete(controller);
      if (set.size === 0 && this.active.get(sessionId) === set) this.active.delete(sessionId);
    }
  }

  /** True while a run on the session is going on or queued in this process. */
  isRunning(sessionId: string): boolean {
    return this.active.has(sessionId);
  }

  /**
   * Aborts every run on the session in this process (running or queued) and resolves once
   * they have ended, so the caller can then change or delete the session safely. Resolves to
   * the number of runs aborted.
   */
  async abortSession(sessionId: string, reason: unknown = 'session-aborted'): Promise<number> {
    const runs = [...(this.active.get(sessionId) ?? [])];
    for (const controller of runs) controller.abort(reason);
    await this.tails.get(sessionId)?.catch(() => {});
    return runs.length;
  }

  /**
   * One run; a sub-agent's (`parent` set) gets a new child session and draws on the parent's
   * budget; a resumed one (`resume`: the decided approval) goes on from its stored step.
   */
  private async run(input: RunInput, parent?: ParentRun, resume?: Approval): Promise<RunResult> {
    const { RunBudget, RunState, runLoop, denyWaiting, resumePoint, waitingError, waitingOn, groupTurns, turnCount } = runParts ??= await import('./run-parts.ts');
    const agent = await this.kernel.agents.load(input.agent);
    // --provider / --model override the agent's for one run; another provider than the
    // agent's does not inherit the agent's model (it names a model of its own provider).
    const own = this.kernel.providerFor(agent);
    const provider = input.provider ? this.kernel.provider(input.provider) : own;
    const model = input.model ?? (provider === own ? agent.model : undefined) ?? provider.defaultModel;
    if (!model) {
      throw new OryxError('ORYX_E_AGENT_INVALID', `Agent "${agent.name}" names no model and provider "${provider.name}" has no default`, {
        hint: `Pass a model for this run, set model: in ${agent.file}, or defaultModel in the provider's options.`,
      });
    }
    const store = this.kernel.service('sessions');
    const session = parent
      ? await store.create({ agent: agent.name, parentSessionId: parent.run.sessionId })
      : await this.openSession(agent.name, input.session);
    const budget = new RunBudget(agent.settings, parent?.budget);
    const run = new RunState({
      // The global Web Crypto: node:crypto loads with the first id, not with the kernel.
      runId: crypto.randomUUID(), agent, sessionId: session.id, provider: provider.name, model, startedAt: new Date().toISOString(),
      user: input.user, parentRunId: parent?.run.runId, approval: input.approval,
      callers: parent ? [...(parent.run.callers ?? []), parent.run.agent] : undefined,
    }, budget, input.signal);
    const max = agent.settings.max_history_turns;
    let stored: StoredMessage[] = [];
    let waiting: Approval | undefined;
    let point: ResumePoint | undefined;
    try {
      // A session that waits for a person takes no new message (unless the agent says deny and go on).
      waiting = resume || parent || !this.kernel.hasService('approvals') ? undefined : await waitingOn(this.kernel, session.id);
      if (waiting && agent.settings.pending_approval !== 'deny') throw waitingError(session.id, waiting, agent);
      // A resume that cannot go on (not decided, the session moved on) is refused before it is a run.
      if (resume) {
        point = resumePoint(run, stored = await store.history(session.id, max), resume);
        await auditDecision(this.kernel, run, resume);
      }
    } catch (error) {
      budget.dispose();
      throw error;
    }
    // Sub-agent levels left below this run: the caller's less one, narrowed by this agent's own setting.
    const depthLeft = Math.min(agent.settings.max_agent_depth, parent ? parent.depthLeft - 1 : Infinity);
    try {
      // Aborted while queued behind another run: leave the session untouched.
      if (input.signal?.aborted) {
        return {
          runId: run.runId, sessionId: session.id, agent: agent.name, answer: '', stopReason: 'aborted', notice: 'aborted', iterations: 0,
          usage: { inputTokens: 0, outputTokens: 0 }, budget: budget.used(),
        };
      }
      // History is read before anything is written: a session whose stored history cannot be
      // read is refused untouched.
      const { secrets } = this.kernel;
      const added: Message[] = [];
      if (!resume) {
        stored = await store.history(session.id, max);
        if (waiting && await denyWaiting(this.kernel, store, run, waiting, stored)) stored = await store.history(session.id, max);
        const user: Message = { role: 'user', content: input.message };
        await store.append(session.id, [secrets.message(user)]);
        added.push(user);
      }
      const seq = new Map<Message, number>(stored.map((s) => [s.message, s.seq]));
      let history = stored.map((s) => s.message);
      for (const m of added) history.push(m);
      if (turnCount(history) > max) {
        const turns = groupTurns(history);
        const leaving = turns.slice(0, turns.length - max);
        await this.kernel.hooks.trimContext.promise({
          run, reason: 'window', turns: leaving.map((t) => ({ firstSeq: seq.get(t[0]!), messages: t })),
        });
        history = turns.slice(turns.length - max).flat();
      }
      // Tool sources (MCP servers) list with the run's signal; without any, none is made for them.
      const tools = await this.kernel.toolsFor(agent, this.kernel.hasToolSources ? run.signal : undefined);
      const delegates = subAgentTools(agent, depthLeft, (name, message, aborts) => this.run(
        { agent: name, message, signal: aborts, ...(input.user ? { user: input.user } : {}) }, { run, budget, depthLeft }));
      const result = await runLoop({
        kernel: this.kernel,
        run,
        provider,
        budget,
        history,
        tools: delegates.length ? [...tools, ...delegates] : tools,
        commit: (messages) => store.append(session.id, messages.map((m) => secrets.message(m))),
        seqOf: (m) => seq.get(m),
        stream: input.stream,
        onEvent: input.onEvent,
        ...(point ? { resume: point } : {}),
      });
      if (result.error) result.error = { ...result.error, message: secrets.mask(result.error.message), ...(result.error.hint ? { hint: secrets.mask(result.error.hint) } : {}) };
      const full: RunResult = { sessionId: session.id, agent: agent.name, ...result };
      if (tapped(this.kernel.hooks.afterRun)) await this.kernel.hooks.afterRun.promise(full, run);
      return full;
    } catch (error) {
      // A run that failed outside the loop (the history could not be read or written) still
      // reaches afterRun, so its record exists; then the error goes to the caller as before.
      if (!(isOryxError(error) && error.data?.hook === 'afterRun')) {
        const e = toOryxError(error, 'ORYX_E_RUN_FAILED');
        const failed: RunResult = {
          runId: run.runId, sessionId: session.id, agent: agent.name, answer: '', stopReason: 'error', iterations: run.iteration,
          usage: { inputTokens: 0, outputTokens: 0 }, budget: budget.used(), error: { code: e.code, message: this.kernel.secrets.mask(e.message) },
        };
        await this.kernel.hooks.afterRun.promise(failed, run).catch((again) => this.kernel.log.warn(`afterRun failed: ${errorMessage(again)}`));
      }
      throw error;
    } finally {
      budget.dispose();
    }
  }

  /** Runs on one session go one after the other, in this process and (via the store's lock) across processes. */
  private async serialize<T>(sessionId: string, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(sessionId) ?? Promise.resolve();
    // A run whose signal fires while it waits stops waiting (and then writes nothing).
    const waited = new Promise<void>((resolve) => {
      previous.then(() => resolve(), () => resolve());
      if (signal?.aborted) resolve();
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    const mine = waited.then(async () => {
      if (signal?.aborted) return fn();
      const store = this.kernel.service('sessions');
      const release = store.lock ? await store.lock(sessionId, signal) : undefined;
      try { return await fn(); } finally { await release?.(); }
    });
    // The next run waits for this one and for everything before it (an aborted waiter
    // finishes early, but the run it was waiting for may still be going).
    const tail = Promise.allSettled([previous, mine]);
    this.tails.set(sessionId, tail);
    try {
      return await mine;
    } finally {
      if (this.tails.get(sessionId) === tail) this.tails.delete(sessionId);
    }
  }
}
