import { deadline, type Deadline } from './deadlines.ts';
import type { AgentSettings, BudgetLimit, BudgetUsed, Usage } from './types.ts';

/** A limit of the run budget that was reached: which, its value, and one line saying so. */
export interface BudgetStop {
  reason: 'limit' | 'budget';
  limit: BudgetLimit;
  value: number;
  notice: string;
}

/** Thrown by the model call when the run's retry budget is used up (the provider keeps failing). */
export class BudgetExceeded extends Error {
  constructor(readonly stop: BudgetStop, options?: { cause?: unknown }) {
    super(stop.notice, options);
    this.name = 'BudgetExceeded';
  }
}

const WHAT: Record<BudgetLimit, string> = {
  max_iterations: 'model calls',
  max_tool_calls: 'tool calls',
  max_tokens: 'tokens',
  max_duration_ms: 'ms of run time',
  max_llm_retries: 'model call retries',
};

/** The stop for a limit, worded once for the CLI, the REST API and the final call's note. */
export function budgetStop(limit: BudgetLimit, value: number): BudgetStop {
  return {
    reason: limit === 'max_iterations' ? 'limit' : 'budget',
    limit, value,
    notice: `stopped at ${limit} (${value} ${WHAT[limit]})`,
  };
}

/**
 * One run's budget: model calls, tool calls, tokens, wall clock and retries, all drawn from
 * one place so a retry storm, a slow tool or a sub-agent cannot exceed it. The wall clock is
 * a deadline: {@link signal} fires (and {@link onTimeUp} is told) when `max_duration_ms` is up,
 * aborting whatever is in flight.
 *
 * A sub-agent's budget has its parent's as `parent`: every token, tool call and retry it takes
 * is taken from both, each limit is checked on both, and the parent's deadline is its own too.
 * Model calls (`max_iterations`) count per run: a sub-agent has its own.
 */
export class RunBudget {
  private readonly started = performance.now();
  private readonly limit: Deadline;
  /** Why this budget's own time is up, once it is. */
  private expired?: BudgetExceeded;
  private expiry?: AbortController;
  private made?: AbortSignal;
  /** Told once the time is up, this budget's or a parent's: the runs and calls in flight. */
  private readonly watchers = new Set<() => void>();
  private readonly unwatchParent?: () => void;
  private tokens = 0;
  private toolCalls = 0;
  private retries = 0;

  constructor(readonly settings: Pick<AgentSettings, BudgetLimit>, private readonly parent?: RunBudget) {
    const ms = settings.max_duration_ms;
    this.limit = deadline(ms, () => this.expire(new BudgetExceeded(budgetStop('max_duration_ms', ms))), { keepAlive: false });
    if (parent) this.unwatchParent = parent.onTimeUp(() => this.timeUp());
  }

  /**
   * Fires when `max_duration_ms` (its own or a parent's) is up; its reason is a
   * {@link BudgetExceeded}. Made when first read: an AbortSignal costs several µs on Node 20,
   * and a run whose provider and tools never ask for one needs none ({@link onTimeUp}).
   */
  get signal(): AbortSignal {
    if (!this.made) {
      this.expiry = new AbortController();
      if (this.expired) this.expiry.abort(this.expired);
      this.made = this.parent ? AbortSignal.any([this.expiry.signal, this.parent.signal]) : this.expiry.signal;
    }
    return this.made;
  }

  /** True once `max_duration_ms` (its own or a parent's) is up. */
  get timedOut(): boolean { return this.expired !== undefined || (this.parent?.timedOut ?? false); }

  /** Calls `fn` when the time is up (this budget's or a parent's); returns how to stop that. */
  onTimeUp(fn: () => void): () => void {
    this.watchers.add(fn);
    return () => { this.watchers.delete(fn); };
  }

  private expire(reason: BudgetExceeded): void {
    this.expired = reason;
    this.expiry?.abort(reason);
    this.timeUp();
  }

  private timeUp(): void {
    for (const fn of [...this.watchers]) fn();
  }

  /** The deadline's stop: this run's, or the parent's when that came first. */
  get timeout(): BudgetStop {
    return this.parent?.timedOut ? inherited(this.parent.timeout) : budgetStop('max_duration_ms', this.settings.max_duration_ms);
  }

  /** Before a model call: the limit already reached (iterations, tokens, tool calls, its own or a parent's), if any. */
  check(iterations: number): BudgetStop | undefined {
    if (this.timedOut) return this.timeout;
    if (iterations >= this.settings.max_iterations) return budgetStop('max_iterations', this.settings.max_iterations);
    return this.spent();
  }

  /** The shared limits (tokens, tool calls) reached here or in a parent. */
  private spent(): BudgetStop | undefined {
    const s = this.settings;
    if (this.tokens >= s.max_tokens) return budgetStop('max_tokens', s.max_tokens);
    if (this.toolCalls >= s.max_tool_calls) return budgetStop('max_tool_calls', s.max_tool_calls);
    const up = this.parent?.spent();
    return up && inherited(up);
  }

  addUsage(usage: Usage): void {
    this.tokens += usage.inputTokens + usage.outputTokens;
    this.parent?.addUsage(usage);
  }

  /** Takes one tool call from the budget (and every parent's); when none is left, takes nothing and returns the limit. */
  takeToolCall(): BudgetStop | undefined {
    if (this.toolCalls >= this.settings.max_tool_calls) return budgetStop('max_tool_calls', this.settings.max_tool_calls);
    const up = this.parent?.takeToolCall();
    if (up) return inherited(up);
    this.toolCalls++;
    return undefined;
  }

  /** Takes one model call retry from the budget (and every parent's); when none is left, takes nothing and returns the limit. */
  takeRetry(): BudgetStop | undefined {
    if (this.retries >= this.settings.max_llm_retries) return budgetStop('max_llm_retries', this.settings.max_llm_retries);
    const up = this.parent?.takeRetry();
    if (up) return inherited(up);
    this.retries++;
    return undefined;
  }

  /** What this run used (a sub-agent's use is in its own record, and in its parent's too). */
  used(): BudgetUsed {
    return { tokens: this.tokens, toolCalls: this.toolCalls, retries: this.retries, ms: Math.round(performance.now() - this.started) };
  }

  /** Stops the deadline timer; call when the run has ended. */
  dispose(): void {
    this.limit.cancel();
    this.unwatchParent?.();
  }
}

/** A parent's limit as a sub-agent reports it. */
function inherited(stop: BudgetStop): BudgetStop {
  return stop.notice.endsWith(PARENT) ? stop : { ...stop, notice: stop.notice + PARENT };
}
const PARENT = ' (the calling agent\'s budget)';
