import { shape as s, validateOptions } from '@oryxos/schema-kit';

/** Options of {@link evals}: defaults for `oryx eval` in this project. */
export interface EvalOptions {
  /**
   * The provider that judges `llm_rubric` checks: `PROVIDER` or `PROVIDER:MODEL` (an enabled
   * provider). Without it (and without `--judge`) rubrics are skipped: nothing falls back to
   * the agent's or the default provider.
   */
  judge?: string;
  /** Runs at once when `--concurrency` is not given. Default 1. */
  concurrency?: number;
}

const shape = s.object({
  judge: s.string({ min: 1, pattern: /^[A-Za-z0-9][\w.-]*(:.+)?$/ }).optional(),
  concurrency: s.integer({ min: 1, max: 64 }).optional(),
});

/** Validates the factory's options at once; the error names the field. */
export function resolveOptions(options: unknown): EvalOptions {
  return validateOptions(shape, options, { plugin: 'evals', code: 'ORYX_E_EVAL_OPTIONS', example: "evals({ judge: 'openai:gpt-4o-mini' })" });
}
