/** One tool call of a case's run, as the assertions see it. */
export interface CallRecord {
  name: string;
  args: Record<string, unknown>;
  isError: boolean;
  /** The reason, when the sandbox or a guard refused the call. */
  denied?: string;
  /** The user turn it was made in (0-based). */
  turn: number;
}

/** What the judge said of one `llm_rubric`. */
export interface RubricVerdict {
  rubric: string;
  pass: boolean;
  reason: string;
  /** The judge's session, to read the whole exchange. */
  sessionId?: string;
}

/** Everything a case's run left that its expectations are checked against. */
export interface Transcript {
  /** The last turn's answer. */
  answer: string;
  /** The last turn's stop reason, as the kernel said it. */
  stopReason: string;
  /** The last turn's notice (why it stopped short), when there is one. */
  notice?: string;
  /** Model calls over every turn (the kernel's iterations). */
  steps: number;
  inputTokens: number;
  outputTokens: number;
  /** Wall clock of all turns, in ms. */
  durationMs: number;
  calls: CallRecord[];
  sessionId?: string;
  runIds: string[];
  /** Set when a turn ended in an error (the run's, or one thrown before it ran). */
  error?: { code: string; message: string; hint?: string };
  /** The turns that ran (fewer than the case has when one stopped for an approval or failed). */
  turnsRun: number;
  /** The judge's verdicts, one per `llm_rubric` (none when no judge is configured). */
  verdicts: RubricVerdict[];
}

export const tokensOf = (t: Pick<Transcript, 'inputTokens' | 'outputTokens'>) => t.inputTokens + t.outputTokens;
