import path from 'node:path';

/** What a case's calls of one tool must look like (`tools_called`). */
export interface ToolExpectation {
  name: string;
  /** Arguments every listed key of which a call must have, equal (deeply). */
  args?: Record<string, unknown>;
  /** Arguments whose string value (JSON for others) a call's must match. */
  argsMatch?: Record<string, RegExp>;
  /** Calls that must match, at least (default 1) and at most. */
  min: number;
  max?: number;
}

/** A denial the run must have had (`denied`). */
export interface DenialExpectation { tool?: string; reasonContains?: string; reasonMatches?: RegExp }

/** What a case expects of its run (`expect:`), read and checked. */
export interface Expectations {
  answerContains: string[];
  answerNotContains: string[];
  answerMatches: RegExp[];
  answerEquals?: string;
  /** `true`: the answer is JSON; an object: JSON valid against this schema. */
  answerJson?: true | Record<string, unknown>;
  toolsCalled: ToolExpectation[];
  toolsNotCalled: string[];
  noDenials?: boolean;
  denied: DenialExpectation[];
  stopReason?: string;
  maxSteps?: number;
  maxTokens?: number;
  maxDurationMs?: number;
  llmRubric: string[];
}

/** A file created in the case's copy of the project before it runs. */
export interface Fixture {
  /** Relative to the project folder. */
  path: string;
  /** The text to write, or… */
  content?: string;
  /** …an absolute file or folder to copy. */
  from?: string;
}

/** One case, read from its file and checked. */
export interface EvalCase {
  name: string;
  description?: string;
  /** The agent it runs: `agent:`, else the agent whose evals folder holds it, else the one the command named, else the default agent. */
  agent: string;
  /** The user turns, in order, on one session. */
  turns: string[];
  fixtures: Fixture[];
  expect: Expectations;
  /** Why it is skipped, when it is. */
  skip?: string;
  /** The share of `--repeat` runs that must pass (default 1). */
  minPassRate: number;
  /** The file it came from and the line it starts on. */
  file: string;
  line: number;
  /** Its cassette: `cassettes/<name>.jsonl` beside the case file. */
  cassette: string;
}

/** The file name a case's cassette gets from its name: `Reads the README` → `reads-the-readme`. */
export function cassetteSlug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'case';
}

/** Where the cassette of a case named `name` in `file` is. */
export function cassetteFor(file: string, name: string): string {
  return path.join(path.dirname(file), 'cassettes', `${cassetteSlug(name)}.jsonl`);
}
