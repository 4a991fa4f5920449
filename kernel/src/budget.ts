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
 * a deadline: {@link signal} fires when `max_duration_ms` is up, aborting whatever is in flight.
 */
export class RunBudget {
  private readonly started = performance.now();
  private readonly deadline = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private tokens = 0;
  private toolCalls = 0;
  private retries = 0;

  constructor(readonly settings: Pick<AgentSettings, BudgetLimit>) {
    const ms = settings.max_duration_ms;
    this.timer = setTimeout(() => this.deadline.abort(new BudgetExceeded(budgetStop('max_duration_ms', ms))), ms);
    this.timer.unref();
  }

  /** Fires when `max_duration_ms` is up; its reason is a {@link BudgetExceeded}. */
  get signal(): AbortSignal { return this.deadline.signal; }

  /** True once `max_duration_ms` is up. */
  get timedOut(): boolean { return this.deadline.signal.aborted; }

  /** Before a model call: the limit already reached (iterations, tokens, tool calls), if any. */
  check(iterations: number): BudgetStop | undefined {
    const s = this.settings;
    if (this.timedOut) return budgetStop('max_duration_ms', s.max_duration_ms);
    if (iterations >= s.max_iterations) return budgetStop('max_iterations', s.max_iterations);
    if (this.tokens >= s.max_tokens) return budgetStop('max_tokens', s.max_tokens);
    if (this.toolCalls >= s.max_tool_calls) return budgetStop('max_tool_calls', s.max_tool_calls);
    return undefined;
  }

  addUsage(usage: Usage): void {
    this.tokens += usage.inputTokens + usage.outputTokens;
  }

  /** Takes one tool call from the budget; false (and nothing taken) when none is left. */
  takeToolCall(): boolean {
    if (this.toolCalls >= this.settings.max_tool_calls) return false;
    this.toolCalls++;
    return true;
  }

  /** Takes one model call retry from the budget; false when none is left. */
  takeRetry(): boolean {
    if (this.retries >= this.settings.max_llm_retries) return false;
    this.retries++;
    return true;
  }

  used(): BudgetUsed {
    return { tokens: this.tokens, toolCalls: this.toolCalls, retries: this.retries, ms: Math.round(performance.now() - this.started) };
  }

  /** Stops the deadline timer; call when the run has ended. */
  dispose(): void {
    clearTimeout(this.timer);
  }
}
