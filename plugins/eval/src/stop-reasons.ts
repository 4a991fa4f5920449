/**
 * The one place that knows the kernel's stop reasons. The kernel is renaming some (a run that
 * waits for a person: `approval` → `suspended`) and adding others (`length`, `content_filter`:
 * the model stopped on its own limit or filter), so a case file may name either spelling and
 * every comparison goes through {@link sameStopReason}.
 */

/** Every stop reason a case may name in `expect.stop_reason`, with what it means (the README's table). */
export const STOP_REASONS = {
  final: 'the agent answered without tool calls',
  limit: 'max_iterations was reached (the answer is the last tool-less call)',
  budget: 'another limit of the run budget was reached (max_tool_calls, max_tokens, max_duration_ms, max_llm_retries)',
  loop: 'the loop guard stopped a run repeating the same calls',
  error: 'the run failed (a provider or tool error the loop could not go on from)',
  aborted: 'the run was cancelled',
  suspended: 'a tool call waits for a person\'s approval (kernels before the rename say approval)',
  length: 'the model stopped at its own output limit',
  content_filter: 'the model\'s provider filtered the answer',
} as const;

export type StopReasonName = keyof typeof STOP_REASONS;

/** Older and newer names of one stop reason. */
const ALIASES: Record<string, StopReasonName> = { approval: 'suspended' };

/** The stop reason in this file's spelling (`approval` → `suspended`), or undefined for one nobody knows. */
export function canonicalStopReason(reason: string): StopReasonName | undefined {
  if (Object.hasOwn(STOP_REASONS, reason)) return reason as StopReasonName;
  return ALIASES[reason];
}

/** Every name a case may write: the reasons and their aliases. */
export const STOP_REASON_NAMES: readonly string[] = [...Object.keys(STOP_REASONS), ...Object.keys(ALIASES)];

/** True when the run's stop reason is the one the case expects, whichever spelling either uses. */
export function sameStopReason(actual: string, expected: string): boolean {
  return (canonicalStopReason(actual) ?? actual) === (canonicalStopReason(expected) ?? expected);
}

/** A run that failed rather than stopped: the case errors unless it expects exactly that. */
export const isFailure = (reason: string) => canonicalStopReason(reason) === 'error';

/** A run waiting for a person: the turns after it cannot run. */
export const isSuspended = (reason: string) => canonicalStopReason(reason) === 'suspended';
