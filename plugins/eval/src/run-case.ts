/**
 * One run of one case: a copy of the project with the case's fixtures, a kernel on it, a session
 * tagged with the eval, each user turn run in order, the judge asked about each rubric, then the
 * copy removed. In record mode the cassette is written to a side file and moved into place only
 * when the run got to its end, so a failed recording never replaces a good one.
 */
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { isOryxError, toOryxError } from '@oryxos/provider-spec';
import type { HostInfo, Kernel, Logger, ResolvedConfig, RunEvent, RunResult } from '@oryxos/kernel';
import type { EvalCase } from './cases.ts';
import { startCaseKernel } from './case-kernel.ts';
import { JUDGE_AGENT, judgeMessage, parseVerdict, writeJudgeAgent, type JudgeSpec } from './judge.ts';
import { REPLAY_PROVIDER, evalProbe, recordingProvider, type EvalMode, type Probe } from './probe.ts';
import { makeScratch } from './scratch.ts';
import { createEvalSession, evalTags } from './session-tags.ts';
import { isFailure, isSuspended } from './stop-reasons.ts';
import type { CallRecord, Transcript } from './transcript.ts';

/** Where and how a case runs. */
export interface CaseEnv {
  /** The project's config, or the compared config. */
  base: ResolvedConfig;
  /** The project's database file, linked into each copy. */
  database?: string;
  /** The provider of agents that name none. */
  defaultProvider?: string;
  mode: EvalMode;
  /** The id of this `oryx eval`, in each session's tags. */
  evalRun: string;
  /** The agent's own provider (its `provider:`, else the default). */
  agentProvider: string;
  /** Live and record: the provider the run uses instead of the agent's (`--provider`, `--compare`); record mode records it. */
  provider?: string;
  /** The model the run uses instead of the agent's (`--model`, `--compare`). */
  model?: string;
  judge?: JudgeSpec;
  logger?: Logger;
  host?: HostInfo;
}

/** What one run of a case left. */
export interface CaseRun {
  transcript: Transcript;
  /** When the replay left the cassette: the step (model call) it happened at. */
  divergedAt?: number;
}

const empty = (): Transcript => ({ answer: '', stopReason: 'error', steps: 0, inputTokens: 0, outputTokens: 0, durationMs: 0, calls: [], runIds: [], turnsRun: 0, verdicts: [] });

/** The provider a run of this case uses, for the agent (`target` its own provider) or the judge. */
function runProvider(env: CaseEnv, target: string, own?: string): string | undefined {
  if (env.mode === 'replay') return REPLAY_PROVIDER;
  if (env.mode === 'record') return recordingProvider(target);
  return own;
}

/**
 * Runs a case once.
 *
 * @example
 * const { transcript } = await runCaseOnce(testCase, { base: config, mode: 'replay', evalRun: 'a1b2', agentProvider: 'openai' }, 0);
 */
export async function runCaseOnce(c: EvalCase, env: CaseEnv, repetition: number): Promise<CaseRun> {
  const t = empty();
  const started = performance.now();
  const judging = env.judge && c.expect.llmRubric.length ? env.judge : undefined;
  const recording = env.mode === 'record' ? `${c.cassette}.recording-${process.pid}-${repetition}` : undefined;
  const targets = [...new Set([env.provider ?? env.agentProvider, ...(judging ? [judging.provider] : [])])];
  const probe: Probe = evalProbe({ mode: env.mode, cassette: recording ?? c.cassette, label: c.name, targets });
  let kernel: Kernel | undefined;
  let scratch;
  let divergedAt: number | undefined;
  let complete = false;
  try {
    scratch = await makeScratch({ root: env.base.root, workspaceDir: env.base.workspaceDir, file: env.base.file, database: env.database }, c.fixtures);
    if (judging) await writeJudgeAgent(scratch.workspaceDir, judging);
    if (recording) await mkdir(path.dirname(recording), { recursive: true });
    kernel = await startCaseKernel({ base: env.base, scratch, probe, defaultProvider: env.defaultProvider, logger: env.logger, host: env.host });
    const agent = await kernel.agents.load(c.agent);
    const session = await createEvalSession(kernel.service('sessions'), {
      agent: agent.name, title: `eval ${agent.name}/${c.name}${repetition ? ` #${repetition + 1}` : ''}`,
      tags: evalTags({ agent: agent.name, caseName: c.name, evalRun: env.evalRun }),
    });
    t.sessionId = session.id;
    // Paths in denials and errors name the project, not its copy: a recording replays the same.
    const copy = scratch.root;
    const unscratch = (text: string) => text.split(copy).join(env.base.root);
    const provider = runProvider(env, env.provider ?? env.agentProvider, env.provider);
    // Another provider than the agent's does not take the agent's model (as with `oryx run --provider`).
    const model = env.model ?? (env.mode !== 'replay' && env.provider && env.provider !== env.agentProvider ? undefined : agent.model);
    for (const [turn, message] of c.turns.entries()) {
      const calls = new Map<string, CallRecord>();
      const onEvent = (e: RunEvent) => {
        if (e.type === 'tool_call') calls.set(e.call.id, { name: e.call.name, args: e.call.args ?? {}, isError: false, turn });
        if (e.type === 'tool_result') {
          const call = calls.get(e.call.id) ?? { name: e.call.name, args: e.call.args ?? {}, isError: false, turn };
          calls.set(e.call.id, { ...call, isError: e.result.isError, ...(e.result.denied !== undefined ? { denied: unscratch(e.result.denied) } : {}) });
        }
      };
      let result: RunResult;
      try {
        result = await kernel.runs.process({ agent: agent.name, session: session.id, message, onEvent, ...(provider ? { provider } : {}), ...(model ? { model } : {}) });
      } catch (error) {
        const e = toOryxError(error, 'ORYX_E_RUN_FAILED');
        t.error = { code: e.code, message: unscratch(e.message), ...(e.hint ? { hint: unscratch(e.hint) } : {}) };
        t.stopReason = 'error';
        break;
      } finally {
        t.calls.push(...calls.values());
      }
      t.turnsRun++;
      t.runIds.push(result.runId);
      t.answer = result.answer;
      t.stopReason = result.stopReason;
      t.notice = result.notice;
      t.steps += result.iterations;
      t.inputTokens += result.usage.inputTokens;
      t.outputTokens += result.usage.outputTokens;
      if (result.error) t.error = { ...result.error, message: unscratch(result.error.message), ...(result.error.hint ? { hint: unscratch(result.error.hint) } : {}) };
      if (isFailure(result.stopReason) || isSuspended(result.stopReason)) break;
    }
    if (t.error?.code === 'ORYX_E_REPLAY_DIVERGED') divergedAt = probe.calls;
    t.durationMs = performance.now() - started;
    if (judging && !t.error && t.turnsRun === c.turns.length) {
      for (const rubric of c.expect.llmRubric) t.verdicts.push(await judge(kernel, env, judging, rubric, c, t));
      // judge() sets t.error when the judge's own run failed (or left the cassette).
      if ((t.error as Transcript['error'])?.code === 'ORYX_E_REPLAY_DIVERGED') divergedAt = probe.calls;
    }
    complete = !t.error;
  } catch (error) {
    const e = toOryxError(error, 'ORYX_E_RUN_FAILED');
    t.error = { code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) };
    t.stopReason = 'error';
  } finally {
    if (!t.durationMs) t.durationMs = performance.now() - started;
    await kernel?.close().catch(() => {});
    await scratch?.remove().catch(() => {});
    if (recording) {
      if (complete) await rename(recording, c.cassette).catch((error) => { t.error ??= toOryxError(error, 'ORYX_E_REPLAY_CASSETTE_WRITE'); });
      else await rm(recording, { force: true });
    }
  }
  return { transcript: t, ...(divergedAt !== undefined ? { divergedAt } : {}) };
}

/** Asks the judge about one rubric, in a session of its own tagged like the case's. */
async function judge(kernel: Kernel, env: CaseEnv, spec: JudgeSpec, rubric: string, c: EvalCase, t: Transcript) {
  try {
    const session = await createEvalSession(kernel.service('sessions'), {
      agent: JUDGE_AGENT, title: `eval judge ${c.agent}/${c.name}`,
      tags: [...evalTags({ agent: c.agent, caseName: c.name, evalRun: env.evalRun }), 'eval-judge'],
    });
    const provider = runProvider(env, spec.provider);
    const result = await kernel.runs.process({
      agent: JUDGE_AGENT, session: session.id, message: judgeMessage(rubric, c.turns, t.answer),
      ...(provider ? { provider } : {}), ...(spec.model ? { model: spec.model } : {}),
    });
    if (result.error) {
      t.error = result.error;
      return { rubric, pass: false, reason: `the judge failed: ${result.error.code} ${result.error.message}`, sessionId: session.id };
    }
    return parseVerdict(rubric, result.answer, session.id);
  } catch (error) {
    const e = isOryxError(error) ? error : toOryxError(error, 'ORYX_E_RUN_FAILED');
    t.error = { code: e.code, message: e.message };
    return { rubric, pass: false, reason: `the judge failed: ${e.code} ${e.message}` };
  }
}
