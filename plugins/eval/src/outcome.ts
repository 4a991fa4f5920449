import path from 'node:path';
import { checkExpectations, type AssertionResult } from './assertions.ts';
import type { EvalCase } from './cases.ts';
import type { EvalMode } from './probe.ts';
import type { CaseRun } from './run-case.ts';
import { sameStopReason } from './stop-reasons.ts';
import { tokensOf } from './transcript.ts';

/** How a case went: its checks passed, one failed, the run failed, the replay left its cassette, or it did not run. */
export type CaseStatus = 'pass' | 'fail' | 'error' | 'diverged' | 'skipped';

/** The first thing that went wrong, with the evidence. */
export interface Failure { assertion: string; evidence: string }

/** One run of a case, judged. */
export interface RunOutcome {
  status: CaseStatus;
  steps: number;
  tokens: number;
  durationMs: number;
  sessionId?: string;
  failure?: Failure;
  assertions: AssertionResult[];
}

/** A case over all its runs (`--repeat`), as the table, `--json` and JUnit report it. */
export interface CaseReport {
  name: string;
  agent: string;
  /** The case file, relative to the working folder, and the case's line in it. */
  file: string;
  line: number;
  mode: EvalMode;
  status: CaseStatus;
  runs: number;
  passed: number;
  /** passed / runs (0 for a skipped case). */
  passRate: number;
  /** Means over the runs. */
  steps: number;
  tokens: number;
  durationMs: number;
  /** The session of each run, for `oryx sessions show`. */
  sessions: string[];
  failure?: Failure;
  /** The checks of the first run that did not pass, else of the last run. */
  assertions: AssertionResult[];
  /** Why it did not run. */
  skipped?: string;
}

/** Judges one run: its checks, or why there are none to make. */
export async function judgeRun(c: EvalCase, run: CaseRun): Promise<RunOutcome> {
  const t = run.transcript;
  const base = { steps: t.steps, tokens: tokensOf(t), durationMs: Math.round(t.durationMs), ...(t.sessionId ? { sessionId: t.sessionId } : {}) };
  if (run.divergedAt !== undefined && t.error) {
    return { ...base, status: 'diverged', assertions: [], failure: { assertion: 'replay', evidence: `diverged at step ${run.divergedAt}: ${t.error.message}` } };
  }
  const expectsError = c.expect.stopReason !== undefined && sameStopReason('error', c.expect.stopReason);
  if (t.error && !expectsError) {
    return { ...base, status: 'error', assertions: [], failure: { assertion: 'run', evidence: `${t.error.code}: ${t.error.message}${t.error.hint ? ` (hint: ${t.error.hint})` : ''}` } };
  }
  const assertions = await checkExpectations(c.expect, t);
  const failed = assertions.find((a) => !a.passed && !a.skipped);
  return { ...base, status: failed ? 'fail' : 'pass', assertions, ...(failed ? { failure: { assertion: failed.assertion, evidence: failed.evidence ?? '' } } : {}) };
}

const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);

/** A case's report from its runs: it passes when the share that passed is at least its `min_pass_rate`. */
export function caseReport(c: EvalCase, mode: EvalMode, outcomes: RunOutcome[]): CaseReport {
  const rel = path.relative(process.cwd(), c.file) || c.file;
  const head = { name: c.name, agent: c.agent, file: rel, line: c.line, mode };
  if (c.skip !== undefined) {
    return { ...head, status: 'skipped', runs: 0, passed: 0, passRate: 0, steps: 0, tokens: 0, durationMs: 0, sessions: [], assertions: [], skipped: c.skip };
  }
  const passed = outcomes.filter((o) => o.status === 'pass').length;
  const passRate = outcomes.length ? passed / outcomes.length : 0;
  const firstBad = outcomes.find((o) => o.status !== 'pass');
  const status: CaseStatus = passRate >= c.minPassRate && outcomes.length ? 'pass' : firstBad?.status ?? 'fail';
  const shown = firstBad ?? outcomes.at(-1);
  return {
    ...head, status, runs: outcomes.length, passed, passRate,
    steps: mean(outcomes.map((o) => o.steps)), tokens: mean(outcomes.map((o) => o.tokens)), durationMs: Math.round(mean(outcomes.map((o) => o.durationMs))),
    sessions: outcomes.flatMap((o) => (o.sessionId ? [o.sessionId] : [])),
    // Shown even when the case passes on its pass rate: a flaky failure is worth reading.
    ...(firstBad?.failure ? { failure: firstBad.failure } : {}),
    assertions: shown?.assertions ?? [],
  };
}

/** True when a case counts against the exit code. */
export const failed = (r: CaseReport) => r.status !== 'pass' && r.status !== 'skipped';
