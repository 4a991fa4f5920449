/**
 * A run's context as the kernel makes it, and the model request of each step: both hand out
 * the run's AbortSignal only when someone reads it. An AbortSignal costs several µs to make on
 * Node 20 — more than a whole step of the loop — and a run whose provider and tools never look
 * at it (a local model, tools that do not cancel) needs none: the kernel itself asks
 * {@link runAborted} and {@link onRunAbort}, which read the budget and the caller's signal.
 */
import type { RunBudget } from './budget.ts';
import type { AgentDefinition, ChatRequest, Message, RunContext, ToolSpec } from './types.ts';

/** The fields of a run the service sets; `signal` comes from the budget and the caller's signal. */
export type RunFields = Omit<RunContext, 'signal' | 'iteration'>;

/**
 * The kernel's {@link RunContext}. `signal` is a getter on the prototype, made on first read
 * (a copy made with `{ ...run }` has none; read it from the run).
 */
export class RunState implements RunContext {
  runId: string;
  agent: AgentDefinition;
  sessionId: string;
  provider: string;
  model: string;
  iteration = 0;
  startedAt?: string;
  declare user?: string;
  declare parentRunId?: string;
  declare callers?: readonly AgentDefinition[];
  declare approval?: { expiresInMs?: number };
  readonly #budget: RunBudget;
  /** The caller's signal (an aborted request, `oryx chat`'s Ctrl-C, a session abort). */
  readonly #outer: AbortSignal | undefined;
  #signal?: AbortSignal;
  #watchers?: Set<() => void>;
  #fired = false;

  constructor(fields: RunFields, budget: RunBudget, outer?: AbortSignal) {
    this.runId = fields.runId;
    this.agent = fields.agent;
    this.sessionId = fields.sessionId;
    this.provider = fields.provider;
    this.model = fields.model;
    this.startedAt = fields.startedAt;
    if (fields.user) this.user = fields.user;
    if (fields.parentRunId) this.parentRunId = fields.parentRunId;
    if (fields.callers) this.callers = fields.callers;
    if (fields.approval) this.approval = fields.approval;
    this.#budget = budget;
    this.#outer = outer;
  }

  /** Fires when the run is aborted or its `max_duration_ms` is up. */
  get signal(): AbortSignal {
    return this.#signal ??= this.#outer ? AbortSignal.any([this.#outer, this.#budget.signal]) : this.#budget.signal;
  }

  /** `signal.aborted`, without making the signal. */
  get aborted(): boolean {
    return this.#outer?.aborted === true || this.#budget.timedOut;
  }

  /** Calls `fn` when the run is aborted (at once if it is); {@link offAbort} stops that. */
  onAbort(fn: () => void): void {
    if (!this.#watchers) {
      const watchers = this.#watchers = new Set();
      const fire = () => {
        if (this.#fired) return;
        this.#fired = true;
        for (const f of [...watchers]) f();
      };
      this.#budget.onTimeUp(fire);
      this.#outer?.addEventListener('abort', fire, { once: true });
    }
    this.#watchers.add(fn);
  }

  offAbort(fn: () => void): void {
    this.#watchers?.delete(fn);
  }
}

/** True once the run is aborted (`run.signal.aborted`; for the kernel's runs without making the signal). */
export function runAborted(run: RunContext): boolean {
  return run instanceof RunState ? run.aborted : run.signal.aborted;
}

/** Another maker's RunContext: one `abort` listener per signal reaches every call on it. */
const watching = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `fn` once when the run is aborted (its signal fires); {@link offRunAbort} stops that.
 * Not called for a run already aborted: check {@link runAborted} first.
 */
export function onRunAbort(run: RunContext, fn: () => void): void {
  if (run instanceof RunState) return run.onAbort(fn);
  const { signal } = run;
  let fns = watching.get(signal);
  if (!fns) {
    const set = fns = new Set();
    watching.set(signal, set);
    signal.addEventListener('abort', () => { for (const f of [...set]) f(); }, { once: true });
  }
  fns.add(fn);
}

export function offRunAbort(run: RunContext, fn: () => void): void {
  if (run instanceof RunState) run.offAbort(fn);
  else watching.get(run.signal)?.delete(fn);
}

/**
 * A model request ({@link ChatRequest}) whose `signal` is the run's, read from the run when the
 * provider reads it (a getter on the prototype: a `{ ...request }` copy has none).
 */
export class ModelRequest implements ChatRequest {
  model: string;
  messages: Message[];
  tools: ToolSpec[];
  readonly #run: RunContext;

  constructor(run: RunContext, messages: Message[], tools: ToolSpec[]) {
    this.model = run.model;
    this.messages = messages;
    this.tools = tools;
    this.#run = run;
  }

  get signal(): AbortSignal {
    return this.#run.signal;
  }
}
