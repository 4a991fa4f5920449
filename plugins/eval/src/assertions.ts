/**
 * The checks of a case: each expectation of `expect:` against the transcript of its run, one
 * result per check with the evidence a person needs when it fails (what the answer said, which
 * calls were made).
 */
import { compileSchema } from '@oryxos/schema-kit';
import { canonical } from '@oryxos/provider-kit/cassette';
import type { DenialExpectation, Expectations, ToolExpectation } from './cases.ts';
import { sameStopReason } from './stop-reasons.ts';
import { tokensOf, type CallRecord, type Transcript } from './transcript.ts';

/** One check and how it went. */
export interface AssertionResult {
  /** The check as the case wrote it: `answer_contains "README"`, `tools_called read_file`. */
  assertion: string;
  passed: boolean;
  /** What the run did instead, for a failed check. */
  evidence?: string;
  /** Why the check was not made (an `llm_rubric` with no judge configured); counts as neither. */
  skipped?: string;
}

const cut = (text: string, max = 160) => (text.length > max ? `${text.slice(0, max)}…` : text);
const quoted = (text: string) => JSON.stringify(cut(text));
const callText = (c: CallRecord) => `${c.name} ${cut(canonical(c.args), 100)}`;
const callsText = (calls: CallRecord[]) => (calls.length ? `calls: ${calls.map(callText).join('; ')}` : 'no tool was called');

function deepEqual(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

/** Whether a call matches what a `tools_called` entry says of its arguments. */
function callMatches(call: CallRecord, t: ToolExpectation): boolean {
  if (call.name !== t.name) return false;
  for (const [k, v] of Object.entries(t.args ?? {})) if (!deepEqual(call.args[k], v)) return false;
  for (const [k, re] of Object.entries(t.argsMatch ?? {})) {
    const value = call.args[k];
    if (value === undefined) return false;
    re.lastIndex = 0;
    if (!re.test(typeof value === 'string' ? value : JSON.stringify(value))) return false;
  }
  return true;
}

function describeTool(t: ToolExpectation): string {
  const parts = [t.name];
  if (t.args) parts.push(`args ${canonical(t.args)}`);
  if (t.argsMatch) parts.push(`args_match ${Object.entries(t.argsMatch).map(([k, re]) => `${k}=${re}`).join(',')}`);
  if (t.min !== 1) parts.push(`min ${t.min}`);
  if (t.max !== undefined) parts.push(`max ${t.max}`);
  return parts.join(' ');
}

function denialMatches(call: CallRecord, d: DenialExpectation): boolean {
  if (call.denied === undefined) return false;
  if (d.tool && call.name !== d.tool) return false;
  if (d.reasonContains && !call.denied.includes(d.reasonContains)) return false;
  if (d.reasonMatches) { d.reasonMatches.lastIndex = 0; if (!d.reasonMatches.test(call.denied)) return false; }
  return true;
}

/** The answer as JSON: the whole text, or the one fenced ```json block in it. */
function answerJson(answer: string): { value?: unknown; error?: string } {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n```/.exec(answer);
  const text = (fenced ? fenced[1]! : answer).trim();
  try { return { value: JSON.parse(text) }; } catch (error) { return { error: (error as Error).message }; }
}

/**
 * Every check of `expect` against the transcript, in the order of the README's table.
 *
 * @example
 * const results = await checkExpectations(testCase.expect, transcript);
 * const firstFailure = results.find((r) => !r.passed && !r.skipped);
 */
export async function checkExpectations(expect: Expectations, t: Transcript): Promise<AssertionResult[]> {
  const out: AssertionResult[] = [];
  const check = (assertion: string, passed: boolean, evidence: () => string) => out.push(passed ? { assertion, passed } : { assertion, passed, evidence: evidence() });
  const answer = t.answer;
  for (const text of expect.answerContains) check(`answer_contains ${quoted(text)}`, answer.includes(text), () => `the answer does not contain it; answer: ${quoted(answer)}`);
  for (const text of expect.answerNotContains) check(`answer_not_contains ${quoted(text)}`, !answer.includes(text), () => `the answer contains it; answer: ${quoted(answer)}`);
  for (const re of expect.answerMatches) {
    re.lastIndex = 0;
    check(`answer_matches ${re}`, re.test(answer), () => `the answer does not match; answer: ${quoted(answer)}`);
  }
  if (expect.answerEquals !== undefined) {
    check(`answer_equals ${quoted(expect.answerEquals)}`, answer.trim() === expect.answerEquals.trim(), () => `the answer is ${quoted(answer)}`);
  }
  if (expect.answerJson !== undefined) {
    const parsed = answerJson(answer);
    if (parsed.error !== undefined) check('answer_json', false, () => `the answer is not JSON (${parsed.error}); answer: ${quoted(answer)}`);
    else if (expect.answerJson === true) check('answer_json', true, () => '');
    else {
      const problem = (await compileSchema(expect.answerJson)).check(parsed.value);
      check('answer_json (schema)', problem === undefined, () => `the answer's JSON does not fit the schema: ${problem}; answer: ${quoted(answer)}`);
    }
  }
  for (const tool of expect.toolsCalled) {
    const matching = t.calls.filter((c) => callMatches(c, tool));
    const ok = matching.length >= tool.min && (tool.max === undefined || matching.length <= tool.max);
    check(`tools_called ${describeTool(tool)}`, ok, () => {
      const times = `${matching.length} matching call(s)`;
      const wanted = tool.max === undefined ? `at least ${tool.min}` : tool.min === tool.max ? `exactly ${tool.min}` : `${tool.min} to ${tool.max}`;
      return `${times}, ${wanted} expected; ${callsText(t.calls)}`;
    });
  }
  for (const name of expect.toolsNotCalled) {
    const made = t.calls.filter((c) => c.name === name);
    check(`tools_not_called ${name}`, made.length === 0, () => `it was called ${made.length} time(s): ${made.map(callText).join('; ')}`);
  }
  const denials = t.calls.filter((c) => c.denied !== undefined);
  if (expect.noDenials === true) {
    check('no_denials', denials.length === 0, () => `denied: ${denials.map((c) => `${callText(c)} (${cut(c.denied!, 120)})`).join('; ')}`);
  }
  for (const d of expect.denied) {
    const label = [d.tool ?? 'any tool', d.reasonContains ? `reason_contains ${quoted(d.reasonContains)}` : '', d.reasonMatches ? `reason_matches ${d.reasonMatches}` : ''].filter(Boolean).join(' ');
    check(`denied ${label}`, denials.some((c) => denialMatches(c, d)), () => (denials.length
      ? `the denials were: ${denials.map((c) => `${c.name}: ${cut(c.denied!, 120)}`).join('; ')}`
      : `nothing was denied; ${callsText(t.calls)}`));
  }
  if (expect.stopReason !== undefined) {
    check(`stop_reason ${expect.stopReason}`, sameStopReason(t.stopReason, expect.stopReason), () => `the run stopped with ${t.stopReason}${t.notice ? ` (${t.notice})` : ''}${t.error ? `: ${t.error.code} ${cut(t.error.message)}` : ''}`);
  }
  if (expect.maxSteps !== undefined) check(`max_steps ${expect.maxSteps}`, t.steps <= expect.maxSteps, () => `the run took ${t.steps} steps (model calls)`);
  if (expect.maxTokens !== undefined) check(`max_tokens ${expect.maxTokens}`, tokensOf(t) <= expect.maxTokens, () => `the run used ${tokensOf(t)} tokens (${t.inputTokens} in, ${t.outputTokens} out)`);
  if (expect.maxDurationMs !== undefined) check(`max_duration_ms ${expect.maxDurationMs}`, t.durationMs <= expect.maxDurationMs, () => `the run took ${Math.round(t.durationMs)} ms`);
  for (const rubric of expect.llmRubric) {
    const verdict = t.verdicts.find((v) => v.rubric === rubric);
    const assertion = `llm_rubric ${quoted(rubric)}`;
    if (!verdict) out.push({ assertion, passed: false, skipped: 'no judge is configured (--judge, or evals({ judge }) in oryx.config.ts)' });
    else check(assertion, verdict.pass, () => `the judge said no: ${cut(verdict.reason, 240)}`);
  }
  return out;
}
