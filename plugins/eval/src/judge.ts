/**
 * `llm_rubric`: a model reads the case's conversation and the agent's answer and says whether
 * the answer meets the rubric. The judge is a provider the user configured for it (`--judge`,
 * or `evals({ judge })`), never the agent's own or the default one, so CI that configures none
 * makes no model call for it (the rubric is reported as skipped). Its run is a normal run of a
 * judge agent written into the case's copy of the project: audited, stored in a session, and
 * recorded into and replayed from the case's cassette like the agent's own calls.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { didYouMean } from '@oryxos/schema-kit';
import { evalError } from './errors.ts';
import type { RubricVerdict } from './transcript.ts';

/** The judge's provider and model (the provider's default when none). */
export interface JudgeSpec { provider: string; model?: string }

/** The agent the judge runs as, in the case's copy of the project. */
export const JUDGE_AGENT = 'oryx-eval-judge';

const INSTRUCTIONS = `You grade the answer of an AI agent against a rubric.
Read the conversation and the answer, decide whether the answer meets every point of the rubric,
and reply with one JSON object and nothing else: {"pass": true or false, "reason": "one sentence"}.`;

/** `openai` or `openai:gpt-4o-mini` → the judge; the provider must be enabled. */
export function parseJudge(spec: string, providers: readonly string[]): JudgeSpec {
  const colon = spec.indexOf(':');
  const provider = colon === -1 ? spec : spec.slice(0, colon);
  const model = colon === -1 ? undefined : spec.slice(colon + 1);
  if (!providers.includes(provider)) {
    throw evalError('ORYX_E_EVAL_JUDGE_MISSING', `The judge names provider "${provider}", which is not enabled${didYouMean(provider, providers)}`, {
      hint: `Enable it in oryx.config.ts, or name one of: ${providers.join(', ') || '(none enabled)'} (PROVIDER or PROVIDER:MODEL).`,
    });
  }
  return { provider, ...(model ? { model } : {}) };
}

/** Writes the judge's AGENT.md into a workspace (a case's copy: never the project's). */
export async function writeJudgeAgent(workspaceDir: string, judge: JudgeSpec): Promise<void> {
  const dir = path.join(workspaceDir, 'agents', JUDGE_AGENT);
  await mkdir(dir, { recursive: true });
  const front = { description: 'Grades an answer against a rubric (oryx eval)', provider: judge.provider, ...(judge.model ? { model: judge.model } : {}), tools: [], settings: { max_iterations: 1 } };
  await writeFile(path.join(dir, 'AGENT.md'), `---\n${JSON.stringify(front)}\n---\n${INSTRUCTIONS}\n`);
}

/** What the judge is asked: the rubric, the user turns and the answer. */
export function judgeMessage(rubric: string, turns: string[], answer: string): string {
  return [`Rubric: ${rubric}`, '', 'Conversation (user turns):', ...turns.map((t, i) => `${i + 1}. ${t}`), '', 'Answer:', answer].join('\n');
}

/** The judge's reply as a verdict: the first JSON object in it with a boolean `pass`. */
export function parseVerdict(rubric: string, reply: string, sessionId?: string): RubricVerdict {
  const start = reply.indexOf('{');
  const end = reply.lastIndexOf('}');
  try {
    const value = JSON.parse(reply.slice(start, end + 1)) as { pass?: unknown; reason?: unknown };
    if (start !== -1 && typeof value.pass === 'boolean') {
      return { rubric, pass: value.pass, reason: typeof value.reason === 'string' ? value.reason : '', ...(sessionId ? { sessionId } : {}) };
    }
  } catch { /* not JSON: below */ }
  return { rubric, pass: false, reason: `the judge did not answer {"pass": …, "reason": …}: ${JSON.stringify(reply.slice(0, 200))}`, ...(sessionId ? { sessionId } : {}) };
}
