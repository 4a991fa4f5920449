/**
 * @oryxos/stop-rules: the stop rule contract (rules that end a run short of an answer) and the
 * default rule, loop detection. The kernel builds its budget limits in and runs every enabled
 * rule, this one first unless an agent turns it off.
 *
 * @example
 * import { loopDetection, type StopRule } from '@oryxos/stop-rules';
 */
export type { Stop, StopRule, StopWatch, RuleResult } from './rule.ts';
export { loopDetection, type LoopDetectionSettings } from './loop-detection.ts';
