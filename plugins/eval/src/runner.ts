/**
 * `oryx eval` as a library: runs cases (each `repeat` times, `concurrency` at once, every run
 * on its own kernel, copy of the project and session) and reports each case. The command is a
 * thin layer over {@link runEvals}; tests and other hosts call it directly.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { errorMessage, isOryxError } from '@oryxos/provider-spec';
import type { HostInfo, Kernel, Logger, ResolvedConfig } from '@oryxos/kernel';
import type { EvalCase } from './cases.ts';
import { evalError } from './errors.ts';
import type { JudgeSpec } from './judge.ts';
import { caseReport, judgeRun, type CaseReport, type RunOutcome } from './outcome.ts';
import type { EvalMode } from './probe.ts';
import { runCaseOnce, type CaseEnv } from './run-case.ts';

/** `auto`: replay each case that has a cassette, run the others live. */
export type ModeChoice = EvalMode | 'auto';

/** What {@link runEvals} needs. */
export interface RunEvalsOptions {
  cases: EvalCase[];
  /** The config the cases run on (the project's, or a compared one). */
  config: ResolvedConfig;
  /** A started kernel on that config: it resolves agents, providers and the database. */
  kernel: Kernel;
  mode: ModeChoice;
  /** Runs of each case. Default 1. */
  repeat?: number;
  /** Runs at once. Default 1. */
  concurrency?: number;
  /** Live and record: run on this provider instead of the agent's. */
  provider?: string;
  /** Run on this model instead of the agent's. */
  model?: string;
  judge?: JudgeSpec;
  /** The id of this eval, in the tags of its sessions. Default: a fresh one. */
  evalRun?: string;
  logger?: Logger;
  host?: HostInfo;
  /** Called as each case's last run ends. */
  onCase?(report: CaseReport): void;
}

/** The project's database file, when its `database` service is a file inside the project (linked into each copy). */
export function projectDatabase(kernel: Kernel): string | undefined {
  if (!kernel.hasService('database')) return undefined;
  const url = kernel.service('database').url;
  if (!url.startsWith('file:')) return undefined;
  const file = path.resolve(url.slice(5).replace(/[?#].*$/, ''));
  const rel = path.relative(kernel.config.root, file);
  return file !== ':memory:' && rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? file : undefined;
}

/** Runs `tasks` with at most `limit` going at once, in order of start. */
async function pool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, tasks.length)) }, worker));
  return results;
}

/** A run that could not start (no cassette, an unknown agent), judged as an error. */
const notRun = (code: string, message: string, hint?: string): RunOutcome => ({
  status: 'error', steps: 0, tokens: 0, durationMs: 0, assertions: [], failure: { assertion: 'run', evidence: `${code}: ${message}${hint ? ` (hint: ${hint})` : ''}` },
});

/**
 * Runs the cases and reports each, in the order given.
 *
 * @example
 * const reports = await runEvals({ cases, config, kernel, mode: 'replay', concurrency: 4 });
 * process.exitCode = reports.some((r) => r.status !== 'pass' && r.status !== 'skipped') ? 1 : 0;
 */
export async function runEvals(options: RunEvalsOptions): Promise<CaseReport[]> {
  const { kernel, config } = options;
  const repeat = Math.max(1, options.repeat ?? 1);
  const evalRun = options.evalRun ?? crypto.randomUUID().slice(0, 8);
  const providers = kernel.providerNames;
  const defaultProvider = config.defaultProvider ?? (providers.length === 1 ? providers[0] : undefined);
  const database = projectDatabase(kernel);
  const modeOf = (c: EvalCase): EvalMode => (options.mode === 'auto' ? (existsSync(c.cassette) ? 'replay' : 'live') : options.mode);

  const perCase = options.cases.map((c) => ({ c, mode: modeOf(c), outcomes: [] as RunOutcome[], left: c.skip ? 0 : repeat }));
  const tasks: (() => Promise<void>)[] = [];
  for (const entry of perCase) {
    if (entry.c.skip !== undefined) { options.onCase?.(caseReport(entry.c, entry.mode, [])); continue; }
    for (let i = 0; i < repeat; i++) {
      tasks.push(async () => {
        const outcome = await runOnce(entry.c, entry.mode, i).catch((error): RunOutcome => notRun(isOryxError(error) ? error.code : 'ORYX_E_RUN_FAILED', errorMessage(error), isOryxError(error) ? error.hint : undefined));
        entry.outcomes[i] = outcome;
        if (--entry.left === 0) options.onCase?.(caseReport(entry.c, entry.mode, entry.outcomes));
      });
    }
  }

  async function runOnce(c: EvalCase, mode: EvalMode, repetition: number): Promise<RunOutcome> {
    if (mode === 'replay' && !existsSync(c.cassette)) {
      const e = evalError('ORYX_E_EVAL_NO_CASSETTE', `case "${c.name}" has no cassette at ${path.relative(process.cwd(), c.cassette) || c.cassette}`);
      return notRun(e.code, e.message, e.hint);
    }
    const agent = await kernel.agents.load(c.agent);
    const agentProvider = kernel.providerFor(agent).name;
    const env: CaseEnv = {
      base: config, mode, evalRun, agentProvider, ...(database ? { database } : {}), ...(defaultProvider ? { defaultProvider } : {}),
      ...(options.provider && mode !== 'replay' ? { provider: options.provider } : {}), ...(options.model ? { model: options.model } : {}),
      ...(options.judge ? { judge: options.judge } : {}), ...(options.logger ? { logger: options.logger } : {}), ...(options.host ? { host: options.host } : {}),
    };
    return judgeRun(c, await runCaseOnce(c, env, repetition));
  }

  await pool(tasks, options.concurrency ?? 1);
  return perCase.map(({ c, mode, outcomes }) => caseReport(c, mode, outcomes));
}
