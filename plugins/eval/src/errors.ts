import { OryxError } from '@oryxos/provider-spec';

/**
 * Every error code this package throws, with how to fix it. The README lists the same codes;
 * a test keeps the two in step.
 */
export const ERROR_CODES = {
  ORYX_E_EVAL_OPTIONS: 'Fix the option the message names in evals({...}) in oryx.config.ts.',
  ORYX_E_EVAL_CASE_INVALID: 'Fix the key the message names at the line it names; the README lists every key of a case file.',
  ORYX_E_EVAL_NO_CASES: 'Write a case file in .oryxos/agents/<agent>/evals/ (docs/evals.md), name the folder that holds them, or loosen --filter.',
  ORYX_E_EVAL_NO_CASSETTE: 'Record the case first with oryx eval --record, or run it against the real model with --live.',
  ORYX_E_EVAL_JUDGE_MISSING: 'Name an enabled provider in --judge or evals({ judge }), e.g. judge: \'openai:gpt-4o-mini\'.',
  ORYX_E_EVAL_SCRATCH: 'The throwaway copy of the project could not be made: check the free space and permissions of the temporary folder (TMPDIR).',
  ORYX_E_EVAL_REPORT_WRITE: 'Check that the folder of the --junit file exists and is writable.',
} as const;

export type EvalErrorCode = keyof typeof ERROR_CODES;

/** An error of this package, with its code's hint unless a better one is given. */
export function evalError(code: EvalErrorCode, message: string, options: { hint?: string; cause?: unknown; data?: Record<string, unknown> } = {}): OryxError {
  return new OryxError(code, message, { hint: options.hint ?? ERROR_CODES[code], cause: options.cause, data: options.data });
}
