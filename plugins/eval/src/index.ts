/**
 * @oryxos/plugin-eval: `oryx eval`, agent test cases in YAML files beside the agent, replayed
 * offline from a cassette per case or run live, checked, and reported as a table, JSON or JUnit
 * XML. The plugin itself only holds project defaults (the judge of `llm_rubric`); the runner
 * (`runEvals`) is loaded by the command when it runs.
 *
 * @example
 * import evals from '@oryxos/plugin-eval';
 * export default defineConfig({ plugins: [evals({ judge: 'openai:gpt-4o-mini' })] });
 */
export { default, default as evals, evalOptionsOf, PLUGIN_NAME } from './plugin.ts';
export type { EvalOptions } from './options.ts';
export { ERROR_CODES, type EvalErrorCode } from './errors.ts';
export { STOP_REASONS, STOP_REASON_NAMES, canonicalStopReason, sameStopReason, type StopReasonName } from './stop-reasons.ts';
export { CASE_KEYS, EXPECT_KEYS } from './case-shape.ts';
export type { EvalCase, Expectations, Fixture, ToolExpectation, DenialExpectation } from './cases.ts';
export type { CaseReport, CaseStatus, Failure } from './outcome.ts';
export type { AssertionResult } from './assertions.ts';
