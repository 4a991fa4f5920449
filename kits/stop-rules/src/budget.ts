/**
 * The budget every run has built in: model calls, tool calls, tokens, wall clock and retries.
 * The kernel checks it beside the stop rules; a sub-agent draws on its caller's.
 */
import type { Usage } from '@oryxos/provider-spec';
import type { Stop } from './rule.ts';

/** A budget limit, by its setting's name. */
export type BudgetLimit = 'max_iterations' | 'max_tool_calls' | 'max_tokens' | 'max_duration_ms' | 'max_llm_retries';

/** What a run used of its budget. */
export interface BudgetUsed {
  tokens: number;
  toolCalls: number;
  retries: number;
  /** Wall-clock milliseconds from the start of the run. */
  ms: number;
}

const WHAT: Record<BudgetLimit, string> = {
  max_iterations: 'model calls',
  max_tool_calls: 'tool calls',
  max_tokens: 'tokens',
  max_duration_ms: 'ms of run time',
  max_llm_retries: 'model call retries',
};

/** The stop for a limit, worded once for the CLI, the REST API and the final call's note. */
export function budgetStop(limit: BudgetLimit, value: number): Stop {
  return { reason: limit === 'max_iterations' ? 'limit' : 'budget', limit: { name: limit, value }, notice: `stopped at ${limit} (${value} ${WHAT[limit]})` };
}

/** Thrown when a limit of the budget is reached in the middle of a step (the retries of a failing provider). */
export class BudgetExceeded extends Error {
  constructor(readonly stop: Stop, options?: { cause?: unknown }) {
    super(stop.notice, options);
    this.name = 'BudgetExceeded';
  }
}

/**
 * Makes `controller` abort when `signal` does, with its reason; returns how to stop following.
 * A listener removed when the run ends, rather than `AbortSignal.any`: on Node 20 a combined
 * signal lives as long as its sources, so one per run would grow a long-lived server.
 */
export function follow(signal: AbortSignal | undefined, controller: AbortController): () => void {
  if (!signal) return () => {};
  if (signal.aborted) { controller.abort(signal.reason); return () => {}; }
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  return () => signal.removeEventListener('abort', onAbort);
}

/**
 * One run's budget: model calls, tool calls, tokens, wall clock and retries, drawn from one
 * place so a retry storm, a slow tool or a sub-agent cannot exceed it. `signal` fires when
 * `max_duration_ms` is up (its reason a {@link BudgetExceeded}), or when the parent's does.
 *
 * A sub-agent's budget has its parent's as `parent`: every token, tool call and retry it takes
 * is taken from both and each limit is checked on both. Model calls count per run.
 */
export class RunBudget {
  private readonly started = performance.now();
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly unfollow: () => void;
  /** Set when this run's own deadline fired (not a parent's). */
  private ownDeadline = false;
  private tokens = 0;
  private toolCalls = 0;
  private retries = 0;

  constructor(readonly settings: Readonly<Record<BudgetLimit, number>>, private readonly parent?: RunBudget) {
    const ms = settings.max_duration_ms;
    // Node's timers cap at 2^31-1 ms (about 24.8 days).
    this.timer = setTimeout(() => {
      this.ownDeadline = true;
      this.controller.abort(new BudgetExceeded(budgetStop('max_duration_ms', ms)));
    }, Math.min(ms, 2 ** 31 - 1));
    this.timer.unref();
    this.unfollow = follow(parent?.signal, this.controller);
  }

  get signal(): AbortSignal { return this.controller.signal; }

  /** The deadline's stop, once the time is up (this run's or a parent's). */
  get timeout(): Stop | undefined {
    const reason = this.signal.reason;
    if (!this.signal.aborted || !(reason instanceof BudgetExceeded)) return undefined;
    return this.ownDeadline ? reason.stop : inherited(reason.stop);
  }

  /** Before a model call: the limit already reached, if any. */
  check(iterations: number): Stop | undefined {
    if (this.timeout) return this.timeout;
    if (iterations >= this.settings.max_iterations) return budgetStop('max_iterations', this.settings.max_iterations);
    return this.spent();
  }

  /** The shared limits (tokens, tool calls) reached here or in a parent. */
  private spent(): Stop | undefined {
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

  /** Takes one tool call (from every parent too); when none is left, takes nothing and returns the limit. */
  takeToolCall(): Stop | undefined {
    return this.take('toolCalls', 'max_tool_calls');
  }

  /** Takes one model call retry (from every parent too); when none is left, takes nothing and returns the limit. */
  takeRetry(): Stop | undefined {
    return this.take('retries', 'max_llm_retries');
  }

  private take(counter: 'toolCalls' | 'retries', limit: 'max_tool_calls' | 'max_llm_retries'): Stop | undefined {
    if (this[counter] >= this.settings[limit]) return budgetStop(limit, this.settings[limit]);
    const up = counter === 'toolCalls' ? this.parent?.takeToolCall() : this.parent?.takeRetry();
    if (up) return inherited(up);
    this[counter]++;
    return undefined;
  }

  /** What this run used (a sub-agent's use is in its own record, and in its parent's too). */
  used(): BudgetUsed {
    return { tokens: this.tokens, toolCalls: this.toolCalls, retries: this.retries, ms: Math.round(performance.now() - this.started) };
  }

  /** Stops the deadline timer and stops following the parent; call when the run has ended. */
  dispose(): void {
    clearTimeout(this.timer);
    this.unfollow();
  }
}

/** A parent's limit as a sub-agent reports it. */
function inherited(stop: Stop): Stop {
  return stop.notice.endsWith(PARENT) ? stop : { ...stop, notice: stop.notice + PARENT };
}
const PARENT = ' (the calling agent\'s budget)';
