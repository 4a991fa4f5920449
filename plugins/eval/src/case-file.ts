/**
 * Reading a case file: YAML, one case (a mapping) or several (a list of mappings), checked key
 * by key. Every error names the file, the line and the key, with the closest known key for a
 * typo, so a broken case never runs as something else.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { LineCounter, isMap, isSeq, parseDocument, type Document, type Node } from '@oryxos/schema-kit/yaml';
import { didYouMean, shape as s } from '@oryxos/schema-kit';
import { compileSchema, SchemaError } from '@oryxos/schema-kit';
import { caseShape } from './case-shape.ts';
import { cassetteFor, cassetteSlug, type DenialExpectation, type EvalCase, type Expectations, type Fixture, type ToolExpectation } from './cases.ts';
import { evalError } from './errors.ts';
import { STOP_REASON_NAMES, canonicalStopReason } from './stop-reasons.ts';

type Path = (string | number)[];

/** Where the text of a parsed YAML document is: the line of a key or a value by its path. */
class Located {
  constructor(readonly file: string, private readonly doc: Document, private readonly lines: LineCounter) {}

  /** The 1-based line of the value at `at` (of its key when `key`), or of the nearest parent the document has. */
  line(at: Path, key = false): number {
    let node: unknown = this.doc.contents;
    let best = node as Node | undefined;
    for (const [i, segment] of at.entries()) {
      const last = i === at.length - 1;
      if (isMap(node)) {
        const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === segment);
        if (!pair) break;
        if (last && key) { best = pair.key as Node; break; }
        node = pair.value;
        best = (pair.value as Node | null) ?? (pair.key as Node);
      } else if (isSeq(node) && typeof segment === 'number') {
        node = node.items[segment];
        if (!node) break;
        best = node as Node;
      } else break;
    }
    const offset = best?.range?.[0] ?? 0;
    return this.lines.linePos(offset).line;
  }

  /** ORYX_E_EVAL_CASE_INVALID at the key or value of `at`. */
  fail(at: Path, problem: string, options: { key?: boolean; hint?: string } = {}): never {
    const line = this.line(at, options.key);
    const where = at.filter((p) => typeof p === 'string').join('.');
    throw evalError('ORYX_E_EVAL_CASE_INVALID', `${this.display()}:${line}: ${where ? `${where} ` : ''}${problem}`, {
      ...(options.hint ? { hint: options.hint } : {}),
      data: { file: this.file, line, key: where || undefined },
    });
  }

  display(): string {
    const rel = path.relative(process.cwd(), this.file);
    return rel && !rel.startsWith('..') ? rel : this.file;
  }
}

/** Where cases are read from and what they default to. */
export interface CaseFileContext {
  /** The agent of a case without `agent:`. */
  defaultAgent: string;
}

/**
 * Reads and checks one case file.
 *
 * @example
 * const cases = await readCaseFile('/proj/.oryxos/agents/assistant/evals/readme.yaml', { defaultAgent: 'assistant' });
 */
export async function readCaseFile(file: string, context: CaseFileContext): Promise<EvalCase[]> {
  const text = await readFile(file, 'utf8');
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const where = new Located(file, doc, lines);
  const problem = doc.errors[0];
  if (problem) {
    const line = problem.linePos?.[0]?.line ?? 1;
    throw evalError('ORYX_E_EVAL_CASE_INVALID', `${where.display()}:${line}: not valid YAML: ${problem.message.split('\n')[0]}`, { data: { file, line } });
  }
  const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
  if (value === null || value === undefined) where.fail([], 'is empty: write a case (name, input, expect)');
  const list = Array.isArray(value) ? value : [value];
  const prefix = (i: number): Path => (Array.isArray(value) ? [i] : []);
  const cases: EvalCase[] = [];
  for (const [i, raw] of list.entries()) cases.push(await readCase(raw, prefix(i), where, context));
  return cases;
}

async function readCase(raw: unknown, at: Path, where: Located, context: CaseFileContext): Promise<EvalCase> {
  const found = s.check(caseShape, raw);
  if (found) {
    const full = [...at, ...found.path];
    if (found.problem === 'must be removed' && found.known) {
      const key = String(found.path.at(-1));
      where.fail(full, `is not a key of a case${didYouMean(key, found.known)}`, {
        key: true, hint: `Known keys here: ${found.known.join(', ')}. The README of @oryxos/plugin-eval lists what each does.`,
      });
    }
    where.fail(full, found.problem);
  }
  const c = raw as Record<string, any>;
  const turns: string[] = typeof c.input === 'string' ? [c.input] : c.input;
  if (!turns.length) where.fail([...at, 'input'], 'must hold at least one user turn');
  const expect = await readExpect(c.expect ?? {}, [...at, 'expect'], where);
  const fixtures = readFixtures(c.fixtures ?? {}, [...at, 'fixtures'], where);
  return {
    name: c.name,
    ...(c.description ? { description: c.description } : {}),
    agent: c.agent ?? context.defaultAgent,
    turns,
    fixtures,
    expect,
    ...(c.skip ? { skip: c.skip === true ? 'skip: true' : String(c.skip) } : {}),
    minPassRate: c.min_pass_rate ?? 1,
    file: where.file,
    line: where.line(at),
    cassette: cassetteFor(where.file, c.name),
  };
}

const list = (v: undefined | string | string[]): string[] => (v === undefined ? [] : typeof v === 'string' ? [v] : v);

/** A regular expression as a case writes it: `/pattern/flags`, or the pattern alone. */
function regex(text: string, at: Path, where: Located): RegExp {
  const slashed = /^\/(.*)\/([a-z]*)$/s.exec(text);
  try {
    return slashed ? new RegExp(slashed[1]!, slashed[2]) : new RegExp(text);
  } catch (error) {
    return where.fail(at, `is not a regular expression: ${(error as Error).message}`, { hint: 'Write it as /pattern/flags (flags: i, m, s, u) or the pattern alone.' });
  }
}

async function readExpect(e: Record<string, any>, at: Path, where: Located): Promise<Expectations> {
  const key = (k: string) => [...at, k];
  if (e.stop_reason !== undefined && !canonicalStopReason(e.stop_reason)) {
    where.fail(key('stop_reason'), `names no stop reason: ${JSON.stringify(e.stop_reason)}${didYouMean(e.stop_reason, STOP_REASON_NAMES)}`, {
      hint: `A stop reason is one of: ${STOP_REASON_NAMES.join(', ')}.`,
    });
  }
  if (e.answer_json && e.answer_json !== true) {
    try {
      await compileSchema(e.answer_json);
    } catch (error) {
      if (!(error instanceof SchemaError)) throw error;
      where.fail(key('answer_json'), `is not a valid JSON Schema: ${error.message}`, { hint: 'Give answer_json: true (any JSON), or a JSON Schema object (type, properties, required, …).' });
    }
  }
  const toolsCalled: ToolExpectation[] = (e.tools_called ?? []).map((t: string | Record<string, any>, i: number): ToolExpectation => {
    if (typeof t === 'string') return { name: t, min: 1 };
    const here = [...key('tools_called'), i];
    const argsMatch = t.args_match
      ? Object.fromEntries(Object.entries(t.args_match as Record<string, string>).map(([k, v]) => [k, regex(v, [...here, 'args_match', k], where)]))
      : undefined;
    const min = t.min ?? 1;
    if (t.max !== undefined && t.max < min) where.fail([...here, 'max'], `is below min (${min}): no number of calls could pass`);
    return { name: t.name, ...(t.args ? { args: t.args } : {}), ...(argsMatch ? { argsMatch } : {}), min, ...(t.max !== undefined ? { max: t.max } : {}) };
  });
  const denied: DenialExpectation[] = (e.denied ?? []).map((d: string | Record<string, any>, i: number): DenialExpectation => {
    if (typeof d === 'string') return { tool: d };
    const here = [...key('denied'), i];
    return {
      ...(d.tool ? { tool: d.tool } : {}),
      ...(d.reason_contains ? { reasonContains: d.reason_contains } : {}),
      ...(d.reason_matches ? { reasonMatches: regex(d.reason_matches, [...here, 'reason_matches'], where) } : {}),
    };
  });
  if (e.no_denials === true && denied.length) where.fail(key('no_denials'), 'contradicts denied: a case cannot expect no denial and a denial');
  return {
    answerContains: list(e.answer_contains),
    answerNotContains: list(e.answer_not_contains),
    answerMatches: list(e.answer_matches).map((r, i) => regex(r, typeof e.answer_matches === 'string' ? key('answer_matches') : [...key('answer_matches'), i], where)),
    ...(e.answer_equals !== undefined ? { answerEquals: e.answer_equals } : {}),
    ...(e.answer_json ? { answerJson: e.answer_json } : {}),
    toolsCalled,
    toolsNotCalled: e.tools_not_called ?? [],
    ...(e.no_denials !== undefined ? { noDenials: e.no_denials } : {}),
    denied,
    ...(e.stop_reason !== undefined ? { stopReason: e.stop_reason } : {}),
    ...(e.max_steps !== undefined ? { maxSteps: e.max_steps } : {}),
    ...(e.max_tokens !== undefined ? { maxTokens: e.max_tokens } : {}),
    ...(e.max_duration_ms !== undefined ? { maxDurationMs: e.max_duration_ms } : {}),
    llmRubric: list(e.llm_rubric),
  };
}

function readFixtures(f: Record<string, string | { from: string }>, at: Path, where: Located): Fixture[] {
  return Object.entries(f).map(([rel, value]) => {
    const normal = path.posix.normalize(rel.replaceAll('\\', '/'));
    if (path.isAbsolute(rel) || normal === '..' || normal.startsWith('../') || normal === '.' || !normal) {
      where.fail([...at, rel], 'must be a path inside the project (relative, without ..)', { key: true });
    }
    if (typeof value === 'string') return { path: normal, content: value };
    const from = path.resolve(path.dirname(where.file), value.from);
    if (!existsSync(from)) where.fail([...at, rel, 'from'], `names ${from}, which does not exist (from: is relative to the case file)`);
    return { path: normal, from };
  });
}

/**
 * Checks what no single file can: every case name unique in its folder, so each has a
 * cassette of its own. Throws ORYX_E_EVAL_CASE_INVALID naming both places.
 */
export function assertUniqueNames(cases: EvalCase[]): void {
  const seen = new Map<string, EvalCase>();
  for (const c of cases) {
    const key = `${path.dirname(c.file)}\0${cassetteSlug(c.name)}`;
    const first = seen.get(key);
    if (first) {
      const rel = (f: string) => path.relative(process.cwd(), f) || f;
      throw evalError('ORYX_E_EVAL_CASE_INVALID', `${rel(c.file)}:${c.line}: name "${c.name}" is taken by the case at ${rel(first.file)}:${first.line} (each case of a folder needs its own name: it names its cassette)`, {
        hint: 'Rename one of the two cases.', data: { file: c.file, line: c.line, key: 'name' },
      });
    }
    seen.set(key, c);
  }
}
