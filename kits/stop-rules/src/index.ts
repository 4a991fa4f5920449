/**
 * @oryxos/stop-rules: the stop rule contract (rules that end a run short of an answer), the
 * default rule, loop detection, and the run budget the kernel builds in ({@link RunBudget}: its
 * limits, checked beside every enabled rule; loop detection first unless an agent turns it off).
 *
 * @example
 * import { loopDetection, type StopRule } from '@oryxos/stop-rules';
 */
export type { Stop, StopRule, StopWatch, RuleResult } from './rule.ts';
export { loopDetection, type LoopDetectionSettings } from './loop-detection.ts';
export { RunBudget, BudgetExceeded, budgetStop, follow, type BudgetLimit, type BudgetUsed } from './budget.ts';
