import type { ToolCall } from '@oryxos/provider-spec';

/** Why a stop rule ends a run, in one line for the user. */
export interface Stop {
  reason: 'limit' | 'budget' | 'loop';
  notice: string;
  /** The limit reached, for `limit` and `budget`. */
  limit?: { name: string; value: number };
}

/** A tool result as a stop rule sees and gives it. */
export interface RuleResult { content: string; isError: boolean }

/**
 * A rule that can end a run short of an answer (the AI SDK's `stopWhen`, with a say before each
 * call): `start` makes one watcher per run. A stopped run gets one last model call without
 * tools, so the user still gets an answer, and its stop reason says why.
 *
 * @example
 * const twoWrites: StopRule = { name: 'two-writes', start: () => { let n = 0; return {
 *   afterCall: (call) => (call.name === 'write_file' && ++n >= 2 ? { reason: 'limit', notice: 'stopped after two writes' } : undefined),
 * }; } };
 */
export interface StopRule<Run = unknown> {
  name: string;
  start(run: Run): StopWatch;
}

export interface StopWatch {
  /** Before a call runs: a result to give it instead (a warning; it does not run), or a stop. */
  beforeCall?(call: ToolCall): RuleResult | Stop | undefined;
  /** After a call: a note added to its result, or a stop once this response's calls are done. */
  afterCall?(call: ToolCall, result: RuleResult): string | Stop | undefined;
}
